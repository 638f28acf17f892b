package io.millrace.core.commit;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.api.metrics.Counter;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.loop.PartitionState;
import io.millrace.core.store.ContainerStores;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens on commit: DESIGN.md's commit protocol for one container.
 *
 * <ol>
 *   <li>the stores flush: object caches to engine write batches and changelog sends
 *       ({@link ContainerStores#handOver}), which the store flusher's thread applies;
 *   <li>every producer flushes and waits for its acknowledgements: outputs and changelogs are
 *       durable;
 *   <li>the stores sync their engines, and the changelog offsets they reached join the checkpoint
 *       ({@link ContainerStores#beforeCheckpoint});
 *   <li>the checkpoint is written: each input partition's last processed offset, then each
 *       store's changelog offset (under {@code job.coordinator=kafka} this is the commit of the
 *       container's transaction, which a member that lost its tasks cannot make);
 *   <li>each store's local files are marked with the changelog offset the checkpoint now holds
 *       ({@link ContainerStores#afterCheckpoint}), so a restart replays only what follows.
 * </ol>
 *
 * <p><b>In the background.</b> The waits of steps 1 to 3 (the flusher, the acknowledgements,
 * RocksDB's memtable flushes) took 0.2-2 s of a loaded machine's commit, and the loop stood still
 * through them: every task's output paused. A periodic commit ({@link #begin}) therefore does on
 * the loop only what must see the tasks stand still, handing the stores' dirty entries over and
 * noting each input's last processed offset, and steps 1 to 3 run on the commit thread while the
 * tasks go on. Once they are done, the loop writes the checkpoint and marks the files ({@link
 * #finish}): what it checkpoints is the offsets it noted, whose outputs and changelog records
 * are acknowledged; records the tasks sent since are covered by the next commit. Where the
 * checkpoint is a transaction's commit ({@code job.coordinator=kafka}, or exactly-once), which
 * must hold exactly what its offsets cover, the loop instead takes the offsets as it commits,
 * after handing over the entries dirtied meanwhile: the transaction makes everything sent before
 * durable with them, and only what the stores dirtied and the producers did not send during the
 * waits is left for the loop to wait on (if every producer sends in that transaction: else as
 * above, which exactly-once does not allow, so it commits whole). Under exactly-once the stores'
 * engines stage their writes, and the loop seals them once the flusher drained, just before the
 * transaction commits: they are then exactly the transaction's. Once it committed the commit
 * thread applies them while the tasks go on (a whole commit, on the loop). Where the writer can
 * {@linkplain CheckpointWriter#writesBesideSends write beside the sends} (Kafka), even the
 * transaction leaves the loop ({@link #writeBeside}): the loop hands the dirtied entries over,
 * takes the offsets, holds its sends and parks the flusher after those entries, and goes on;
 * the commit thread commits. This needs every producer to flush
 * beside sends ({@code SystemProducer.concurrentFlush}) and every engine to take writes beside
 * the loop. A task's request and the final commit run whole on the loop ({@link #commit}). A
 * revoke's commit is begun and finished like a periodic one, the loop delivering to the tasks
 * that stay meanwhile ({@code RunLoop.commitBeside}). A commit in the background is settled
 * ({@link #settle}) before any store closes.
 *
 * <p>A crash between any two steps re-delivers the input after the previous checkpoint: outputs
 * may repeat, nothing is lost. Which partition goes where in a checkpoint (its layout) changes
 * only when the container's partitions do ({@link #layout}), so a commit allocates nothing per
 * partition: the Kafka checkpoint lesson, where thousands of partitions made each checkpoint a
 * burst of garbage.
 *
 * <p>Loop thread only (the commit thread is its own).
 */
public final class Committer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);
  /** A commit longer than this is logged with the time of each step. */
  private static final long SLOW_COMMIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private volatile long lastCommitEpochMillis;
  private final int containerId;
  private final List<SystemProducer> producers;
  private final ContainerStores stores;
  private final CheckpointStore checkpoints;
  private final Counter commits;
  /** Whether periodic commits may run their waits in the background. */
  private final boolean background;
  private final boolean exactlyOnce;
  private PartitionState[] inputs = new PartitionState[0];
  private CheckpointWriter writer;
  private long[] offsets = new long[0];
  /** The commit on its way in the background, or null. */
  private Pending pending;
  private ExecutorService thread;
  private Runnable beforeHandOver = () -> {};

  /** A commit begun on the loop: its waits run on the commit thread, or on the loop (whole). */
  private static final class Pending {
    final CheckpointWriter writer;
    final long[] offsets;
    final int inputCount;
    final ContainerStores.Snapshot stores;
    /** What to wait for the flusher to have done: what the hand-over gave it. */
    final long handed;
    final long began;
    final long handedOver;
    /** Whether it is a commit begun again because the tasks changed (at most once in a row). */
    boolean again;
    /** When each waiting step ended (read on the loop once they are done). */
    long flushed;
    long acknowledged;
    long synced;
    /** When the loop took it up again to write its checkpoint. */
    long finishing;
    CompletableFuture<Void> prepared;
    /**
     * The checkpoint's write on the commit thread, the loop's sends held meanwhile, or null: the
     * offsets were taken ({@link #writeBeside}).
     */
    CompletableFuture<Void> writing;
    /** When the loop's part of a write beside it ended, and when the flusher had sent the rest. */
    long held;
    long sentRest;
    /** When the write beside the loop committed, and when it had marked the files. */
    long written;
    long marked;

    Pending(CheckpointWriter writer, long[] offsets, int inputCount,
        ContainerStores.Snapshot stores, long handed, long began, long handedOver) {
      this.writer = writer;
      this.offsets = offsets;
      this.inputCount = inputCount;
      this.stores = stores;
      this.handed = handed;
      this.began = began;
      this.handedOver = handedOver;
    }
  }

  /**
   * A committer that runs every commit on the loop.
   *
   * @param producers the container's producers (outputs and changelogs)
   * @param stores the container's stores, or null
   * @param checkpoints where checkpoints go
   * @param commits counts commits (a metric)
   */
  public Committer(int containerId, List<SystemProducer> producers, ContainerStores stores,
      CheckpointStore checkpoints, Counter commits) {
    this(containerId, producers, stores, checkpoints, commits, false);
  }

  /**
   * A committer.
   *
   * @param producers the container's producers (outputs and changelogs)
   * @param stores the container's stores, or null
   * @param checkpoints where checkpoints go
   * @param commits counts commits (a metric)
   * @param background whether periodic commits may wait in the background ({@code
   *     task.commit.background}, at-least-once): they do where the container has producers and
   *     every one can flush beside sends
   */
  public Committer(int containerId, List<SystemProducer> producers, ContainerStores stores,
      CheckpointStore checkpoints, Counter commits, boolean background) {
    this(containerId, producers, stores, checkpoints, commits, background, false);
  }

  /**
   * A committer.
   *
   * @param background whether periodic commits may wait in the background ({@code
   *     task.commit.background})
   * @param exactlyOnce whether the job is exactly-once: a commit then waits in the background
   *     only where its checkpoint commits the transaction that holds everything sent (the offsets
   *     are taken as it commits, so the transaction holds exactly what they cover)
   */
  public Committer(int containerId, List<SystemProducer> producers, ContainerStores stores,
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
   * The container's input partitions changed: from now on a checkpoint holds these (in this
   * order), then the stores' changelog partitions. A commit in the background keeps the layout it
   * began with.
   */
  public void layout(PartitionState[] inputs) {
    List<StreamPartition> ids = new ArrayList<>();
    for (PartitionState p : inputs) {
      ids.add(p.id());
    }
    if (stores != null) {
      ids.addAll(stores.changelogPartitions()); // changelog offsets go in checkpoints too
    }
    this.inputs = inputs.clone();
    this.writer = checkpoints.writer(containerId, ids, producers);
    this.offsets = new long[ids.size()];
  }

  /**
   * Runs the whole commit protocol on this thread, after settling a commit in the background;
   * throws if any step fails (nothing after it happened).
   *
   * @throws io.millrace.spi.checkpoint.CommitFencedException if another member owns the tasks
   */
  public void commit() {
    settle(true);
    if (writer == null) {
      return; // the container never held a partition: there is nothing to commit
    }
    Pending p = handOver(stores == null ? null : stores.snapshot());
    prepare(p);
    p.finishing = System.nanoTime();
    write(p, false);
  }

  /**
   * A periodic commit: begins one in the background where it can ({@link #inBackground} is then
   * true until {@link #finish}), else runs the whole protocol now. Loop thread.
   *
   * @throws io.millrace.spi.checkpoint.CommitFencedException if a whole commit was fenced
   */
  public void begin() {
    if (pending != null) {
      return; // one at a time: the one on its way covers this
    }
    if (writer == null) {
      return;
    }
    ContainerStores.Snapshot snapshot = stores == null ? null : stores.snapshot();
    if (!background || (snapshot != null && !snapshot.besideLoop())
        || (exactlyOnce && !writer.commitsWhatWasSent())) {
      commit();
      return;
    }
    Pending p = handOver(snapshot);
    p.prepared = CompletableFuture.runAsync(() -> prepare(p), thread());
    pending = p;
  }

  /**
   * Step 1's part on the loop: the stores' dirty entries handed to the flusher, each input's
   * last processed offset noted (into this layout's array: a whole commit settles a commit in
   * the background before it uses the array again).
   */
  private Pending handOver(ContainerStores.Snapshot snapshot) {
    long began = System.nanoTime();
    long handed = handOverStores();
    takeOffsets(offsets);
    return new Pending(writer, offsets, inputs.length, snapshot, handed, began,
        System.nanoTime());
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

  /**
   * Runs {@code quiesce} on the loop before each hand-over of the stores' caches: the container
   * waits there for its tasks on the worker pool, whose messages use the same stores.
   */
  public void beforeHandOver(Runnable quiesce) {
    this.beforeHandOver = quiesce;
  }

  /** Notes each input's last processed offset into {@code offsets} (this layout's order). */
  private void takeOffsets(long[] offsets) {
    for (int i = 0; i < inputs.length; i++) {
      offsets[i] = inputs[i].lastOffset();
    }
  }

  /** Steps 1 to 3's waits: on the commit thread, or on the loop for a whole commit. */
  private void prepare(Pending p) {
    if (stores != null) {
      stores.awaitHandedOver(p.handed);
    }
    p.flushed = System.nanoTime();
    for (SystemProducer producer : producers) {
      producer.flush();
    }
    p.acknowledged = System.nanoTime();
    if (stores != null) {
      stores.beforeCheckpoint(p.stores, p.offsets, p.inputCount);
    }
    p.synced = System.nanoTime();
  }

  /**
   * Whether a checkpoint takes its offsets as it is written (its write commits the transaction
   * that holds everything sent): a commit finished then covers every offset processed so far.
   */
  public boolean takesOffsetsAtWrite() {
    return writer != null && writer.commitsWhatWasSent();
  }

  /**
   * Waits up to {@code nanos} for the commit in the background to have done its waits (its
   * failure is {@link #finish}'s to throw).
   */
  public void awaitPrepared(long nanos) {
    Pending p = pending;
    if (p == null) {
      return;
    }
    try {
      step(p).get(nanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      // not yet, or failed: either way the caller looks again
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether a commit is on its way in the background. */
  public boolean inBackground() {
    return pending != null;
  }

  /**
   * Whether the commit in the background has done its waits, or its write beside the loop ended:
   * {@link #finish} it.
   */
  public boolean prepared() {
    return pending != null && step(pending).isDone();
  }

  /** What the loop waits for next: the waits, or the write beside it. */
  private static CompletableFuture<Void> step(Pending p) {
    return p.writing != null ? p.writing : p.prepared;
  }

  /**
   * Whether the commit in the background took its offsets already (its write runs beside the
   * loop): what the tasks processed since is for the next commit.
   */
  public boolean offsetsTaken() {
    return pending != null && pending.writing != null;
  }

  /**
   * Ends the commit in the background once {@link #prepared}: writes its checkpoint and marks
   * the stores' files, on the loop, the flusher's sends waited for first (no send may run beside
   * a transaction's commit). If the container's tasks changed since it began, it begins another
   * for them instead ({@link #inBackground} is then true again). Throws what a background step
   * threw: no checkpoint was written then.
   *
   * @throws io.millrace.spi.checkpoint.CommitFencedException if another member owns the tasks
   */
  public void finish() {
    Pending p = pending;
    pending = null;
    if (p.writing != null) {
      written(p);
      return;
    }
    outcome(p.prepared);
    if (p.writer != writer) {
      if (p.again) {
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
    p.finishing = System.nanoTime();
    if (writer.writesBesideSends() && (stores == null || stores.flusherThreaded())) {
      writeBeside(p);
      return;
    }
    if (writer.commitsWhatWasSent()) {
      // A transaction: it must hold exactly what its offsets cover. So the offsets are taken now,
      // and the stores' entries dirtied since the commit began go into it too.
      if (stores != null) {
        stores.awaitHandedOver(handOverStores());
      }
      takeOffsets(p.offsets);
    } else if (stores != null) {
      // The write may still be a transaction's commit (one that does not hold every send, an
      // output being on another cluster), beside which the flusher must not send changelogs.
      stores.awaitFlusher();
    }
    write(p, true);
  }

  /**
   * Steps 4 and 5 beside the loop, for a checkpoint that commits a transaction holding every send
   * (the commit's round trips took the loop 20-300 ms each time). On the loop, only this: the
   * stores' entries dirtied during the waits handed over, the offsets taken, the loop's sends
   * held from here on, and the flusher parked after the handed entries: the transaction then
   * holds exactly what the offsets cover. The commit thread waits for the flusher to have sent
   * them, seals the staged writes (exactly-once), commits the transaction, lets the flusher go
   * on and marks the files (exactly-once: applies the sealed writes first); the loop goes on
   * meanwhile, learns the outcome at {@link #finish} and sends what it held into the next
   * transaction. It does not poll its membership meanwhile (RunLoop): a rejoin could move the
   * group to a generation that refuses the offsets.
   */
  private void writeBeside(Pending p) {
    long handed = handOverStores();
    takeOffsets(p.offsets);
    p.writer.holdSends();
    if (stores != null) {
      stores.parkFlusher();
    }
    p.held = System.nanoTime();
    try {
      p.writing = CompletableFuture.runAsync(() -> writeHeld(p, handed), thread());
    } catch (RuntimeException e) { // the commit thread is gone (closed): undo the barrier
      p.writer.dropHeldSends();
      if (stores != null) {
        stores.unparkFlusher();
      }
      throw e;
    }
    pending = p;
  }

  /** The commit thread's part of {@link #writeBeside}. */
  private void writeHeld(Pending p, long handed) {
    try {
      if (stores != null) {
        stores.awaitHandedOver(handed);
      }
      p.sentRest = System.nanoTime();
      if (stores != null) {
        stores.seal(); // exactly-once: the flusher parked after the transaction's writes
      }
      p.writer.write(p.offsets);
    } catch (RuntimeException | Error e) {
      p.writer.dropHeldSends(); // before the write, or a failed one: they follow no commit
      throw e;
    } finally {
      if (stores != null) {
        stores.unparkFlusher();
      }
    }
    p.written = System.nanoTime();
    if (stores != null) {
      stores.afterCheckpoint(p.stores); // marks (exactly-once: applies first), on this thread
    }
    p.marked = System.nanoTime();
  }

  /**
   * The loop learns how a write beside it went: counted if it committed; if it failed, the
   * flusher's sends that followed (into a transaction of their own, aborted when the tasks are
   * given up) are waited for, then the failure is thrown.
   */
  private void written(Pending p) {
    try {
      outcome(p.writing);
    } catch (RuntimeException e) {
      p.writer.dropHeldSends(); // (what the loop sent since the failure: dropped, not sent)
      if (stores != null) {
        try {
          stores.awaitFlusher();
        } catch (RuntimeException flushFailed) {
          e.addSuppressed(flushFailed);
        }
      }
      throw e;
    }
    p.writer.sendHeld(); // what the loop sent during the write, now into the next transaction
    committed();
    long ended = System.nanoTime();
    if (ended - p.began > SLOW_COMMIT_NANOS || LOG.isDebugEnabled()) {
      LOG.atLevel(ended - p.began > SLOW_COMMIT_NANOS ? org.slf4j.event.Level.WARN
          : org.slf4j.event.Level.DEBUG).log("container {}: a commit took {} ms, the loop stopped "
              + "{} ms of it: stores handed over {} ms; in the background: stores flushed {} ms, "
              + "outputs and changelogs acknowledged {} ms, engines synced {} ms; on the loop: "
              + "stores handed over again and sends held {} ms; beside it: the rest sent {} ms, "
              + "transaction committed {} ms, files marked {} ms", containerId,
          ms(ended - p.began), ms(p.handedOver - p.began + p.held - p.finishing),
          ms(p.handedOver - p.began), ms(p.flushed - p.handedOver),
          ms(p.acknowledged - p.flushed), ms(p.synced - p.acknowledged),
          ms(p.held - p.finishing), ms(p.sentRest - p.held), ms(p.written - p.sentRest),
          ms(p.marked - p.written));
    }
  }

  /**
   * Steps 4 and 5, on the loop: the checkpoint written, the files marked. {@code inBackground}:
   * the waits before ran on the commit thread (the loop stood still only for the hand-over and
   * this), else on the loop too.
   */
  private void write(Pending p, boolean inBackground) {
    long started = System.nanoTime();
    if (stores != null) {
      stores.seal(); // exactly-once: what is staged now is exactly this transaction's writes
    }
    p.writer.write(p.offsets);
    long written = System.nanoTime();
    if (stores != null) {
      // Exactly-once, in the background: the sealed writes are applied on the commit thread
      // (before the next commit's waits there), not on the loop: 7-11 ms of every 100 ms commit
      // of a count, measured.
      stores.afterCheckpoint(p.stores, inBackground ? thread() : Runnable::run);
    }
    long ended = System.nanoTime();
    committed();
    long stopped = inBackground ? p.handedOver - p.began + ended - p.finishing : ended - p.began;
    if (ended - p.began > SLOW_COMMIT_NANOS || LOG.isDebugEnabled()) {
      // Say which step held it, and how much of it the loop stood still.
      LOG.atLevel(ended - p.began > SLOW_COMMIT_NANOS ? org.slf4j.event.Level.WARN
          : org.slf4j.event.Level.DEBUG).log("container {}: a commit took {} ms, the loop stopped "
              + "{} ms of it: stores handed over {} ms; {}: stores flushed {} ms, outputs and "
              + "changelogs acknowledged {} ms, engines synced {} ms; on the loop: stores flushed "
              + "again {} ms, checkpoint written {} ms, files marked {} ms", containerId,
          ms(ended - p.began), ms(stopped), ms(p.handedOver - p.began),
          inBackground ? "in the background" : "on the loop", ms(p.flushed - p.handedOver),
          ms(p.acknowledged - p.flushed), ms(p.synced - p.acknowledged),
          ms(started - p.finishing), ms(written - started), ms(ended - written));
    }
  }

  /**
   * Waits for a commit in the background to end its waits and drops it: a whole commit, a loss
   * of the tasks or a stop follows, and no store may close under it. Its failure is only logged:
   * what failed (a producer's send, the flusher) fails the whole commit that follows too, and a
   * whole commit rethrows a failed write beside the loop itself.
   */
  public void settle() {
    settle(false);
  }

  /**
   * As {@link #settle()}; {@code rethrow}: a failed write beside the loop is thrown, not only
   * logged (a whole commit follows, which must not commit offsets past what that write aborted).
   */
  private void settle(boolean rethrow) {
    Pending p = pending;
    if (p == null) {
      return;
    }
    pending = null;
    try {
      outcome(p.prepared);
    } catch (RuntimeException e) {
      LOG.warn("container {}: a commit in the background failed before its checkpoint: {}",
          containerId, e.toString());
      return;
    }
    if (p.writing != null) {
      try {
        written(p); // its offsets were taken and the loop's sends held: it runs to its end
      } catch (RuntimeException e) {
        if (rethrow) {
          throw e;
        }
        LOG.warn("container {}: a commit's write beside the loop failed: {}", containerId,
            e.toString());
      }
    }
  }

  /** Waits for the background steps; rethrows their failure as it was thrown. */
  private static void outcome(CompletableFuture<Void> prepared) {
    try {
      prepared.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("a commit failed: " + e.getCause(), e.getCause());
    }
  }

  private void committed() {
    commits.inc();
    lastCommitEpochMillis = System.currentTimeMillis();
  }

  private ExecutorService thread() {
    if (thread == null) {
      thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "millrace-commit-" + containerId);
        t.setDaemon(true);
        return t;
      });
    }
    return thread;
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }

  /** When the last commit completed, in ms since the epoch; 0 before the first. Any thread. */
  public long lastCommitEpochMillis() {
    return lastCommitEpochMillis;
  }

  /** Settles a commit in the background and stops the commit thread. */
  @Override
  public void close() {
    settle();
    if (thread != null) {
      thread.shutdown();
    }
  }
}
