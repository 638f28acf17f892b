package io.millrace.core.commit;

import io.millrace.api.StreamPartition;
import io.millrace.api.metrics.Counter;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.system.SystemProducer;
import io.millrace.spi.system.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit protocol of one container, as a state machine: each commit goes through the
 * {@linkplain CommitPhase phases} BEGUN, FLUSHING, PREPARED, (WRITING,) WRITTEN, MARKED along one
 * of three {@linkplain CommitPath paths}, which differ only in which phases the loop stands still
 * for.
 *
 * <ol>
 *   <li>BEGUN, on the loop: the stores' dirty entries handed to the flusher ({@link
 *       CommitParticipant#handOver}), each input's last processed offset taken;
 *   <li>FLUSHING: the flusher's work waited for, every producer flushed (outputs and changelogs
 *       acknowledged), the engines synced and their changelog offsets added to the checkpoint;
 *   <li>PREPARED: the checkpoint may be written;
 *   <li>WRITTEN: the checkpoint is written (under {@code job.coordinator=kafka} or exactly-once,
 *       a transaction commits, which a member that lost its tasks cannot do);
 *   <li>MARKED: each store's local files record the changelog offset the checkpoint holds, so a
 *       restart replays only what follows.
 * </ol>
 *
 * <p><b>The paths.</b> {@link CommitPath#ON_LOOP} runs every phase on the loop ({@link #commit}: a
 * task's request, the final commit, and whatever cannot wait in the background). A periodic
 * commit ({@link #begin}) takes {@link CommitPath#WAITS_OFF_LOOP} where the producers flush beside
 * sends and the engines take writes beside reads: FLUSHING runs on the commit thread while the
 * tasks go on (its waits took 0.2-2 s of a loaded machine's commit, every task's output paused
 * through them). When the waits end, the commit thread posts an event to the loop (its {@code
 * loopEvents} executor), and the loop {@linkplain #finish finishes} the commit: it writes the
 * checkpoint with the offsets taken at BEGUN, whose outputs are acknowledged. Where the checkpoint
 * commits a transaction that holds every send (it must hold exactly what its offsets cover), the
 * loop first hands over what the stores dirtied meanwhile and takes the offsets again. Where the
 * checkpoint writer can also write beside sends (Kafka) and the flusher has a thread, the
 * transaction's commit leaves the loop too, {@link CommitPath#WRITE_OFF_LOOP}: the loop hands the
 * dirtied entries over, takes the offsets, holds its sends and parks the flusher after those
 * entries (WRITING), and goes on; the commit thread commits and marks, and posts the end; the
 * loop then sends what it held into the next transaction. Under exactly-once the engines stage
 * their writes, sealed just before the transaction commits and applied once it has.
 *
 * <p>A crash between any two phases re-delivers the input after the previous checkpoint: outputs
 * may repeat, nothing is lost. A commit in the background is {@linkplain #settle settled} before
 * any store closes. Which partition goes where in a checkpoint (its layout) changes only when the
 * container's partitions do ({@link #layout}), so a commit allocates nothing per partition: the
 * Kafka checkpoint lesson, where thousands of partitions made each checkpoint a burst of garbage.
 *
 * <p>Loop thread only, but for the waits and a write off the loop, which run on the commit
 * thread.
 *
 * <p><b>Size.</b> Past 500 lines, a third of them this documentation: the three paths share
 * every phase, and each phase's comment gives the measured reason for where it runs.
 */
public final class Committer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);
  private volatile long lastCommitEpochMillis;
  private final int containerId;
  private final List<SystemProducer> producers;
  /** The container's stores, or null. */
  private final CommitParticipant stores;
  private final CheckpointStore checkpoints;
  private final Counter commits;
  /** Whether periodic commits may run their waits in the background. */
  private final boolean background;
  private final boolean exactlyOnce;
  private CheckpointedInput[] inputs = new CheckpointedInput[0];
  private CheckpointWriter writer;
  /**
   * The transaction the writer's write commits, if every producer of the container sends in it
   * (the write then commits exactly what the offsets cover), else null.
   */
  private Transaction holdingEverySend;
  private long[] offsets = new long[0];
  /** The commit on its way in the background, or null. */
  private Commit pending;
  /** The last commit that ended (for {@link #phase}), or null. */
  private Commit last;
  /** Commits begun so far (whole ones too: each commit's number) and written through. */
  private final CommitCounts counts = new CommitCounts();
  /** The commit thread: made at the first commit in the background, unless one was given. */
  private Executor thread;
  private ExecutorService ownThread;
  /** Where the commit thread posts the end of a step: the loop's events. */
  private Executor loopEvents = Runnable::run;
  /** What the loop does when a step in the background ended (it calls {@link #finish}). */
  private Runnable onStepEnded = () -> {};
  private Runnable beforeHandOver = () -> {};

  /**
   * A committer that runs every commit on the loop.
   *
   * @param producers the container's producers (outputs and changelogs)
   * @param stores the container's stores, or null
   * @param checkpoints where checkpoints go
   * @param commits counts commits (a metric)
   */
  public Committer(int containerId, List<SystemProducer> producers, CommitParticipant stores,
      CheckpointStore checkpoints, Counter commits) {
    this(containerId, producers, stores, checkpoints, commits, false, false);
  }

  /**
   * A committer.
   *
   * @param producers the container's producers (outputs and changelogs)
   * @param stores the container's stores, or null
   * @param checkpoints where checkpoints go
   * @param commits counts commits (a metric)
   * @param background whether periodic commits may wait in the background ({@code
   *     task.commit.background}): they do where the container has producers and every one can
   *     flush beside sends
   * @param exactlyOnce whether the job is exactly-once: a commit then waits in the background
   *     only where its checkpoint commits the transaction that holds everything sent (the offsets
   *     are taken as it commits, so the transaction holds exactly what they cover)
   */
  public Committer(int containerId, List<SystemProducer> producers, CommitParticipant stores,
      CheckpointStore checkpoints, Counter commits, boolean background, boolean exactlyOnce) {
    this.exactlyOnce = exactlyOnce;
    this.containerId = containerId;
    this.producers = producers;
    this.stores = stores;
    this.checkpoints = checkpoints;
    this.commits = commits;
    // Without a producer there is little to wait for: not worth a thread and a second step.
    this.background = background && !producers.isEmpty()
        && producers.stream().allMatch(SystemProducer::concurrentFlush);
  }

  /**
   * Connects the committer to its loop: the commit thread posts the end of each step in the
   * background to {@code loopEvents}, where {@code onStepEnded} runs (it calls {@link #finish},
   * now or once the container may commit). Before the first commit.
   */
  public void connect(Executor loopEvents, Runnable onStepEnded) {
    this.loopEvents = loopEvents;
    this.onStepEnded = onStepEnded;
  }

  /** Runs the commit thread's part on {@code commitThread} instead of a thread of its own (tests). */
  void runBackgroundOn(Executor commitThread) {
    this.thread = commitThread;
  }

  /**
   * Runs {@code quiesce} on the loop before each hand-over of the stores' caches: the container
   * waits there for its tasks on the worker pool, whose messages use the same stores.
   */
  public void beforeHandOver(Runnable quiesce) {
    this.beforeHandOver = quiesce;
  }

  /**
   * The container's input partitions changed: from now on a checkpoint holds these (in this
   * order), then the stores' changelog partitions. A commit in the background keeps the layout it
   * began with.
   */
  public void layout(CheckpointedInput[] inputs) {
    List<StreamPartition> ids = new ArrayList<>();
    for (CheckpointedInput p : inputs) {
      ids.add(p.id());
    }
    if (stores != null) {
      ids.addAll(stores.checkpointed()); // changelog offsets go in checkpoints too
    }
    this.inputs = inputs.clone();
    this.writer = checkpoints.writer(containerId, ids, producers);
    this.holdingEverySend = holdingEverySend(writer, producers);
    this.offsets = new long[ids.size()];
  }

  /**
   * The writer's transaction if every one of the producers sends in it, else null: an output on
   * another cluster (allowed under at-least-once) is not in it, and its sends are durable only at
   * their producer's flush.
   */
  private static Transaction holdingEverySend(CheckpointWriter writer,
      List<SystemProducer> producers) {
    Transaction t = writer.transaction();
    if (t == null) {
      return null;
    }
    for (SystemProducer producer : producers) {
      if (producer.transaction() != t) {
        return null;
      }
    }
    return t;
  }

  // ---- the paths ----

  /**
   * Runs a whole commit on this thread ({@link CommitPath#ON_LOOP}), after settling a commit in
   * the background; throws if any phase fails (nothing after it happened).
   *
   * @throws io.millrace.spi.checkpoint.CommitFencedException if another member owns the tasks
   */
  public void commit() {
    settle(true);
    if (writer == null) {
      return; // the container never held a partition: there is nothing to commit
    }
    Commit c = begun(CommitPath.ON_LOOP, stores == null ? null : stores.round());
    try {
      prepare(c);
      c.finishing = System.nanoTime();
      writeOnLoop(c);
    } catch (RuntimeException | Error e) {
      c.phase = CommitPhase.FAILED;
      throw e;
    } finally {
      ended(c);
    }
  }

  /**
   * A periodic commit: begins one in the background where it can ({@link #inProgress} is then
   * true until {@link #finish}), else runs a whole one now. Loop thread.
   *
   * @throws io.millrace.spi.checkpoint.CommitFencedException if a whole commit was fenced
   */
  public void begin() {
    if (pending != null || writer == null) {
      return; // one at a time: the one on its way covers this; or nothing to commit yet
    }
    CommitParticipant.Round round = stores == null ? null : stores.round();
    CommitPath path = pathFor(round);
    if (path == CommitPath.ON_LOOP) {
      commit();
      return;
    }
    Commit c = begun(path, round);
    pending = c;
    c.prepared = CompletableFuture.runAsync(() -> prepare(c), thread());
    whenEnded(c, c.prepared);
  }

  /** The path a periodic commit beginning now takes. */
  private CommitPath pathFor(CommitParticipant.Round round) {
    if (!background || (round != null && !round.offLoop())
        || (exactlyOnce && holdingEverySend == null)) {
      return CommitPath.ON_LOOP;
    }
    return holdingEverySend != null && (stores == null || stores.flusherThreaded())
        ? CommitPath.WRITE_OFF_LOOP : CommitPath.WAITS_OFF_LOOP;
  }

  /** Posts the end of a step in the background to the loop, whether it worked or not. */
  private void whenEnded(Commit c, CompletableFuture<Void> step) {
    step.whenComplete((ignored, failure) -> {
      if (failure != null) {
        c.phase = CommitPhase.FAILED;
      }
      loopEvents.execute(() -> {
        if (pending == c && c.step() == step) { // (else settled or finished meanwhile)
          onStepEnded.run();
        }
      });
    });
  }

  /**
   * BEGUN, on the loop: the stores' dirty entries handed to the flusher and each input's last
   * processed offset noted (into this layout's array: a whole commit settles a commit in the
   * background before it uses the array again).
   */
  private Commit begun(CommitPath path, CommitParticipant.Round round) {
    long number = counts.begin();
    long began = System.nanoTime();
    long handed = handOverStores();
    takeOffsets(offsets);
    return new Commit(number, path, writer, holdingEverySend, offsets, inputs.length, round,
        handed, began, System.nanoTime());
  }

  /**
   * Hands the stores' dirty entries to the flusher once whatever else uses them has let go
   * ({@link #beforeHandOver}); returns what to wait for the flusher to have done (0: no stores).
   */
  private long handOverStores() {
    if (stores == null) {
      return 0;
    }
    beforeHandOver.run();
    return stores.handOver();
  }

  /** Notes each input's last processed offset into {@code offsets} (this layout's order). */
  private void takeOffsets(long[] offsets) {
    for (int i = 0; i < inputs.length; i++) {
      offsets[i] = inputs[i].lastOffset();
    }
    if (LOG.isDebugEnabled()) {
      // Which offsets each commit took, where and when: beside its checkpoint's write and its
      // transaction in the broker's log, the history of a checkpoint that did not cover its sends.
      LOG.debug("container {}: offsets {} taken for commit {} ({}) on {}", containerId,
          java.util.Arrays.toString(offsets), counts.begun(),
          pending == null ? "none on its way" : "commit " + pending.number + " on its way",
          Thread.currentThread().getName());
    }
  }

  /** FLUSHING to PREPARED: on the commit thread, or on the loop for a whole commit. */
  private void prepare(Commit c) {
    c.phase = CommitPhase.FLUSHING;
    if (stores != null) {
      stores.awaitHandedOver(c.handed);
    }
    c.flushed = System.nanoTime();
    for (SystemProducer producer : producers) {
      producer.flush();
    }
    c.acknowledged = System.nanoTime();
    if (stores != null) {
      c.stores.beforeCheckpoint(c.offsets, c.inputCount);
    }
    c.synced = System.nanoTime();
    c.phase = CommitPhase.PREPARED;
  }

  /**
   * Ends the commit in the background once its step ended (the event, or {@link #stepEnded}): from
   * PREPARED it
   * writes the checkpoint and marks the files on the loop (the flusher's sends waited for first:
   * no send may run beside a transaction's commit), or begins the write off the loop; from
   * WRITING (the write ended) it sends what the loop held. If the container's tasks changed since
   * it began, it begins another for them instead ({@link #inProgress} is then true again).
   * Throws what a step in the background threw: no checkpoint was written then.
   *
   * @throws io.millrace.spi.checkpoint.CommitFencedException if another member owns the tasks
   */
  public void finish() {
    Commit c = pending;
    pending = null;
    if (c.writing != null) {
      try {
        written(c);
      } finally {
        ended(c);
      }
      return;
    }
    try {
      outcome(c.prepared);
    } catch (RuntimeException | Error e) {
      ended(c);
      throw e;
    }
    if (c.writer != writer) {
      ended(c); // dropped: the one begun next covers what it would have
      if (c.again) {
        commit(); // they changed during the second try too: no third, whole now
        return;
      }
      // The tasks changed meanwhile (a restored one started): begin again with the layout they
      // have now. (Not a whole commit at once: a failover starts its tasks one by one, and a
      // whole commit at each stood the loop still before the next one's start.)
      begin();
      if (pending != null) {
        pending.again = true;
      }
      return;
    }
    c.finishing = System.nanoTime();
    try {
      if (c.path == CommitPath.WRITE_OFF_LOOP) {
        writeOffLoop(c);
        return; // it ends at its write's end
      }
      if (c.transaction != null) {
        // A transaction: it must hold exactly what its offsets cover. So the offsets are taken
        // now, and the stores' entries dirtied since the commit began go into it too.
        if (stores != null) {
          stores.awaitHandedOver(handOverStores());
        }
        takeOffsets(c.offsets);
      } else if (stores != null) {
        // The write may still be a transaction's commit (one that does not hold every send, an
        // output being on another cluster), beside which the flusher must not send changelogs.
        stores.awaitFlusher();
      }
      writeOnLoop(c);
      ended(c);
    } catch (RuntimeException | Error e) {
      c.phase = CommitPhase.FAILED;
      ended(c);
      throw e;
    }
  }

  /**
   * PREPARED to WRITING, for a checkpoint that commits a transaction holding every send (the
   * commit's round trips took the loop 20-300 ms each time). On the loop, only this: the stores'
   * entries dirtied during the waits handed over, the offsets taken, the loop's sends held from
   * here on, and the flusher parked after the handed entries: the transaction then holds exactly
   * what the offsets cover. The commit thread waits for the flusher to have sent them, seals the
   * staged writes (exactly-once), commits the transaction, lets the flusher go on and marks the
   * files (exactly-once: applies the sealed writes first), then posts the end to the loop, which
   * sends what it held into the next transaction ({@link #finish}). The container does not let
   * its membership rejoin meanwhile: the group's next generation would refuse the offsets.
   */
  private void writeOffLoop(Commit c) {
    long handed = handOverStores();
    takeOffsets(c.offsets);
    c.transaction.holdSends();
    if (stores != null) {
      stores.parkFlusher();
    }
    c.held = System.nanoTime();
    c.phase = CommitPhase.WRITING; // (before the commit thread may move it on)
    try {
      c.writing = CompletableFuture.runAsync(() -> writeHeld(c, handed), thread());
    } catch (RuntimeException e) { // the commit thread is gone (closed): undo the barrier
      c.transaction.dropHeldSends();
      if (stores != null) {
        stores.unparkFlusher();
      }
      c.phase = CommitPhase.FAILED;
      throw e;
    }
    pending = c;
    whenEnded(c, c.writing);
  }

  /** WRITING to MARKED, the commit thread's part of {@link #writeOffLoop}. */
  private void writeHeld(Commit c, long handed) {
    try {
      if (stores != null) {
        stores.awaitHandedOver(handed);
      }
      c.sentRest = System.nanoTime();
      if (stores != null) {
        stores.seal(); // exactly-once: the flusher parked after the transaction's writes
      }
      c.writer.write(c.offsets);
    } catch (RuntimeException | Error e) {
      c.transaction.dropHeldSends(); // before the write, or a failed one: they follow no commit
      throw e;
    } finally {
      if (stores != null) {
        stores.unparkFlusher();
      }
    }
    c.written = System.nanoTime();
    c.phase = CommitPhase.WRITTEN;
    if (stores != null) {
      c.stores.afterCheckpoint(Runnable::run); // marks (exactly-once: applies first), here
    }
    c.marked = System.nanoTime();
    c.phase = CommitPhase.MARKED;
  }

  /**
   * The loop learns how a write off the loop went: counted if it committed; if it failed, the
   * flusher's sends that followed (into a transaction of their own, aborted when the tasks are
   * given up) are waited for, then the failure is thrown.
   */
  private void written(Commit c) {
    try {
      outcome(c.writing);
    } catch (RuntimeException e) {
      c.transaction.dropHeldSends(); // (what the loop sent since the failure: dropped, not sent)
      if (stores != null) {
        try {
          stores.awaitFlusher();
        } catch (RuntimeException flushFailed) {
          e.addSuppressed(flushFailed);
        }
      }
      throw e;
    }
    c.transaction.sendHeld(); // what the loop sent during the write, now into the next one
    committed(c);
    c.logWrittenOffLoop(LOG, containerId, System.nanoTime());
  }

  /**
   * PREPARED to MARKED on the loop: the checkpoint written, the files marked. Under exactly-once,
   * after waits in the background, the sealed writes are applied on the commit thread (before the
   * next commit's waits there), not on the loop: 7-11 ms of every 100 ms commit of a count,
   * measured.
   */
  private void writeOnLoop(Commit c) {
    long started = System.nanoTime();
    if (stores != null) {
      stores.seal(); // exactly-once: what is staged now is exactly this transaction's writes
    }
    c.writer.write(c.offsets);
    c.written = System.nanoTime();
    c.phase = CommitPhase.WRITTEN;
    if (stores != null) {
      c.stores.afterCheckpoint(c.path == CommitPath.ON_LOOP ? Runnable::run : thread());
    }
    long ended = System.nanoTime();
    c.phase = CommitPhase.MARKED;
    committed(c);
    c.logWrittenOnLoop(LOG, containerId, started, ended);
  }

  // ---- what the loop asks ----

  /** Whether a commit is on its way in the background. */
  public boolean inProgress() {
    return pending != null;
  }

  /**
   * The phase of the commit on its way, or of the last one that ended; null before the first.
   * Loop thread (a commit's own thread moves it on; this reads it as it is now).
   */
  public CommitPhase phase() {
    Commit c = pending != null ? pending : last;
    return c == null ? null : c.phase;
  }

  /** The path of the commit on its way, or of the last one; null before the first. */
  public CommitPath path() {
    Commit c = pending != null ? pending : last;
    return c == null ? null : c.path;
  }

  /**
   * Whether the step in the background of the commit on its way has ended: {@link #finish} may
   * take it up without waiting. (The loop hears of it by an event; this is for a finish the loop
   * put off.)
   */
  public boolean stepEnded() {
    return pending != null && pending.step().isDone();
  }

  /**
   * Whether a checkpoint takes its offsets as it is written (its write commits the transaction
   * that holds everything sent): a commit finished then covers every offset processed so far.
   */
  public boolean takesOffsetsAtWrite() {
    return holdingEverySend != null;
  }

  /**
   * Whether the commit in the background took its offsets already (its write runs off the loop):
   * what the tasks processed since is for the next commit.
   */
  public boolean offsetsTaken() {
    return pending != null && pending.offsetsTaken();
  }

  /**
   * Waits for a commit in the background to end its waits and drops it: a whole commit, a loss
   * of the tasks or a stop follows, and no store may close under it. Its failure is only logged:
   * what failed (a producer's send, the flusher) fails the whole commit that follows too, and a
   * whole commit rethrows a failed write off the loop itself.
   */
  public void settle() {
    settle(false);
  }

  /**
   * As {@link #settle()}; {@code rethrow}: a failed write off the loop is thrown, not only logged
   * (a whole commit follows, which must not commit offsets past what that write aborted).
   */
  private void settle(boolean rethrow) {
    Commit c = pending;
    if (c == null) {
      return;
    }
    pending = null;
    try {
      outcome(c.prepared);
    } catch (RuntimeException e) {
      LOG.warn("container {}: a commit in the background failed before its checkpoint: {}",
          containerId, e.toString());
      ended(c);
      return;
    }
    if (c.writing != null) {
      try {
        written(c); // its offsets were taken and the loop's sends held: it runs to its end
      } catch (RuntimeException e) {
        if (rethrow) {
          throw e;
        }
        LOG.warn("container {}: a commit's write beside the loop failed: {}", containerId,
            e.toString());
      } finally {
        ended(c);
      }
    } else {
      ended(c); // dropped before its write: a whole commit, a loss or a stop follows
    }
  }

  /** A commit ended, written or not: what {@link #phase} shows. */
  private void ended(Commit c) {
    last = c;
  }

  /**
   * How many commits have begun so far, whole ones too. A commit begun after a task stopped
   * being delivered covers its last offsets. Loop thread.
   */
  public long begunCount() {
    return counts.begun();
  }

  /**
   * The number of the last commit whose checkpoint was written ({@link #begunCount} as it began),
   * or 0: a commit numbered {@code n} or later that was written covers what was processed before
   * commit {@code n} began. Loop thread.
   */
  public long writtenThrough() {
    return counts.writtenThrough();
  }

  /** The counters as the container's tasks read them ({@code TaskContext.commits()}). */
  public CommitCounts counts() {
    return counts;
  }


  /** Waits for a step in the background; rethrows its failure as it was thrown. */
  private static void outcome(CompletableFuture<Void> step) {
    try {
      step.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException("a commit failed: " + e.getCause(), e.getCause());
    }
  }

  private void committed(Commit c) {
    counts.written(c.number);
    commits.inc();
    lastCommitEpochMillis = System.currentTimeMillis();
  }

  private Executor thread() {
    if (thread == null) {
      ownThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "millrace-commit-" + containerId);
        t.setDaemon(true);
        return t;
      });
      thread = ownThread;
    }
    return thread;
  }

  /** When the last commit completed, in ms since the epoch; 0 before the first. Any thread. */
  public long lastCommitEpochMillis() {
    return lastCommitEpochMillis;
  }

  /** Settles a commit in the background and stops the commit thread. */
  @Override
  public void close() {
    settle();
    if (ownThread != null) {
      ownThread.shutdown();
    }
  }
}
