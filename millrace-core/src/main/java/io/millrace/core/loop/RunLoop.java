package io.millrace.core.loop;

import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.commit.Committer;
import io.millrace.core.store.StoreRegistry;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemProducer;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One container's event loop: a single thread that feeds many tasks.
 *
 * <pre>
 * while running:
 *   refill: poll consumers for empty partitions (ConsumerMultiplexer)
 *   deliver: choose a partition with data (Chooser), hand its messages to its task inline
 *   timers: window, commit (Committer)
 *   end: every partition finished -> end of stream, final commit, stop
 * </pre>
 *
 * <p>Each partition's state is one {@link PartitionState}, found by its dense index in the
 * container's {@link PartitionTable}. The synchronous path calls the task directly: no callback
 * object, no lock, no volatile write per message. The clock is read once per cycle, and a cycle
 * delivers up to {@link #MESSAGES_PER_CYCLE} messages before timers and refills are looked at
 * again.
 */
public final class RunLoop {
  static final Logger LOG = LoggerFactory.getLogger(RunLoop.class);
  /** Bounds the time between timer checks: ~0.1 ms of trivial work, far less than any timer. */
  static final int MESSAGES_PER_CYCLE = 4096;
  /** How long the loop must have been behind its input to count as {@link #busy}. */
  static final long SATURATED_NANOS = 100_000_000L;

  private final int containerId;
  private final LoopSettings settings;
  private final Clock clock;
  private final MetricsRegistry metrics;
  private final String metricsGroup;
  private final List<SystemConsumer> consumers;
  private final List<SystemProducer> producers;
  private final Committer committer;
  /** The container's stores, or null. */
  private final StoreRegistry stores;
  /** The partitions, their buffers and consumers, and the tasks they are delivered to. */
  private final Delivery delivery;
  private final Counter processed;
  private final JobCoordinator coordinator;
  /** The task table: assignments, revocations, restores. */
  private final TaskManager taskManager;
  /** The container's side of its membership, on the membership's thread. */
  private final MembershipBridge bridge;
  /** Polls the membership on a thread of its own, from {@link #start}. */
  private MembershipRunner runner;
  /** The membership's first poll returned (a static one gave its tasks in it). */
  private boolean firstPolled;
  /** The membership said its tasks never change again: the loop ends when its inputs do. */
  private boolean membershipSettled;
  /** When the container commits, and with what proof of ownership. */
  private final CommitSchedule commits;
  /**
   * What other threads post to the loop: the ends of commit steps, the membership's calls, a
   * restore's progress and end, a failed poll.
   */
  private final LoopEvents events = new LoopEvents();
  /** The container's place in its job; joined at {@link #start}. */
  private ContainerMembership membership;
  private volatile boolean stopRequested;
  private long nextWindowNanos = Long.MAX_VALUE;
  private long nextTimeoutCheckNanos = Long.MAX_VALUE;
  /** The soonest of the three above. */
  private long nextLoopTimerNanos = Long.MAX_VALUE;
  private int idleCycles;
  private boolean wasBusy;
  /** Whether the last cycle began with input buffered for some task (the loop is behind). */
  private boolean behind;
  /**
   * When the loop's current spell of cycles that all began with input buffered began (clock
   * nanos), or -1 while it is caught up: {@link #behind} for other threads, written only when it
   * changes.
   */
  private volatile long behindSinceNanos = -1;
  private long cycleNanos;

  /**
   * Creates the loop; {@link #run} starts it. It takes its tasks from its membership in the job.
   *
   * @param parts what the container is made of
   */
  public RunLoop(ContainerParts parts) {
    this.containerId = parts.containerId();
    this.settings = parts.settings();
    this.clock = parts.clock();
    this.metrics = parts.metrics();
    this.consumers = parts.consumers();
    this.producers = parts.producers();
    this.committer = parts.committer();
    this.stores = parts.stores();
    this.coordinator = parts.coordinator();
    this.metricsGroup = "container-" + containerId;
    this.processed = metrics.counter(metricsGroup, "messages-processed");
    this.delivery = new Delivery(parts, metricsGroup, metrics.timer(metricsGroup, "process-ns"),
        committer::layout);
    if (stores != null) {
      committer.beforeHandOver(delivery::quiesceStoreUsers);
    }
    metrics.gauge(metricsGroup, "tasks",
        () -> delivery.published().length == 0 ? 0 : delivery.tasks().size());
    metrics.gauge(metricsGroup, "partitions", () -> delivery.published().length);
    this.taskManager = new TaskManager(containerId, delivery, committer, parts.taskSource(),
        producers, stores, parts.stateUpdater(), events, metrics, metricsGroup);
    this.bridge = new MembershipBridge(events, taskManager, parts.taskSource());
    this.commits = new CommitSchedule(committer, taskManager, settings.commitNanos());
    committer.connect(events, () -> commits.stepEnded(cycleNanos));
  }

  /** Asks the loop to commit and stop; returns at once. Any thread. */
  public void requestStop() {
    stopRequested = true;
  }

  /**
   * The container's partitions now, by index; other threads read their offsets racily (progress,
   * metrics).
   */
  public List<PartitionState> partitions() {
    return List.of(delivery.published());
  }

  /** The tasks that run now (those restoring not among them). Loop thread. */
  List<TaskInstance> tasks() {
    return delivery.tasks();
  }

  /** Messages processed so far. */
  public long processedCount() {
    return processed.count();
  }

  /**
   * Runs the container until its inputs end, a stop is requested, or a task fails.
   *
   * @throws TaskFailedException if a task failed under {@code task.error.policy=fail} (offsets
   *     before the failed message are committed; under exactly-once, nothing since the last
   *     commit is)
   */
  public void run() throws Exception {
    boolean committedOk = false;
    try {
      start();
      while (cycle() >= 0) {
        // cycle() does the work; it returns -1 when the container is done or asked to stop.
      }
      stopMembership(null); // nothing changes the tasks or their proof of ownership from here
      long stopping = System.nanoTime();
      committedOk = commit();
      LOG.info("container {}: stopping: final commit {} in {} ms", containerId,
          committedOk ? "done" : "refused", (System.nanoTime() - stopping) / 1_000_000);
    } catch (TaskFailedException e) {
      stopMembership(e);
      if (!settings.exactlyOnce()) {
        // Commit what was processed before the failed message, then report the failure.
        commitQuietly();
      }
      // Under exactly-once nothing is committed: the failed message may have sent part of its
      // output, which a commit would make visible with a checkpoint that processes it again. The
      // producers' stop aborts the open transaction.
      throw e;
    } catch (RuntimeException | Error e) {
      stopMembership(e);
      throw e;
    } finally {
      stopMembership(null);
      boolean clean = committedOk;
      try {
        clean = closeTasks(committedOk);
      } finally {
        if (clean) {
          try {
            leave(true);
          } finally {
            stopSystems(true);
          }
        } else {
          // Nothing of the last interval is committed: what the producers still hold is dropped
          // or aborted before the group hands the tasks on.
          try {
            stopSystems(false);
          } finally {
            leave(false);
          }
        }
      }
    }
  }

  /**
   * Leaves the job after the final commit (the next owner resumes from it) and after the tasks and
   * their stores closed (a process on this machine may open them next), but before the consumers
   * and producers stop: those take up to a fetch wait and a producer close, which the others would
   * otherwise spend waiting for the tasks.
   */
  private void leave(boolean committedOk) {
    if (membership != null) {
      try {
        long started = System.nanoTime();
        membership.leave(committedOk);
        LOG.info("container {}: left the job ({} ms)", containerId,
            (System.nanoTime() - started) / 1_000_000);
      } catch (RuntimeException e) {
        LOG.warn("container {}: leaving the job failed", containerId, e);
      }
    }
  }

  /**
   * Starts the producers, joins the job and starts the consumers. A static membership ({@code
   * local}) gives every task at the first poll, before the consumers start. Part of {@link #run}.
   */
  public void start() throws Exception {
    events.bind();
    for (SystemProducer producer : producers) {
      producer.start();
    }
    membership = coordinator.join(containerId, bridge);
    taskManager.joined(membership);
    runner = new MembershipRunner(containerId, membership, events);
    runner.start(() -> firstPolled = true, () -> membershipSettled = true);
    // A static membership gives every task at its first poll: they start before the consumers.
    while (!firstPolled && !stopRequested) {
      events.await(50_000_000L);
      events.runPending(); // the membership's calls, and a failed poll's rethrow
    }
    for (SystemConsumer consumer : consumers) {
      consumer.start();
    }
    long now = clock.nanoTime();
    commits.start(now, membership, runner);
    if (settings.windowNanos() > 0) {
      nextWindowNanos = now + settings.windowNanos();
    }
    if (delivery.async != null) {
      nextTimeoutCheckNanos = now + timeoutCheckInterval();
    }
    retime();
  }

  /**
   * Runs a whole commit now.
   *
   * @return false if the commit was fenced: another member owns the tasks, which are lost now
   */
  boolean commit() {
    boolean committed = commits.commit(cycleNanos);
    retime();
    return committed;
  }

  /** A commit or a send was refused: every task of the container is lost. */
  private void fenced(CommitFencedException e) {
    commits.fenced(e);
  }

  /**
   * Stops the membership's thread (once): calls of it that wait for the loop throw {@code why}
   * (or that the container stops). From here the container's tasks and their proof of ownership
   * change no more.
   */
  private void stopMembership(Throwable why) {
    if (runner == null) {
      return;
    }
    bridge.close(why == null
        ? new IllegalStateException("container " + containerId + " is stopping")
        : new IllegalStateException("container " + containerId + " failed: " + why, why));
    runner.stopping();
    commits.membershipStopping();
    runner.stop();
    runner = null;
  }

  /** Stops the membership's thread; for tests that drive the loop a cycle at a time. */
  void stopMembership() {
    stopMembership(null);
  }

  /** Whether tasks are being revoked now. Loop thread. */
  boolean revoking() {
    return taskManager.revoking();
  }

  /** Overdue callbacks are looked for this often: a tenth of the time-out, at least every 1 ms. */
  private long timeoutCheckInterval() {
    return Math.max(1_000_000L, settings.async().callbackTimeoutNanos() / 10);
  }

  /**
   * One cycle of the loop: refill, deliver up to {@link #MESSAGES_PER_CYCLE} messages, timers.
   * Public so that benchmarks can drive the loop step by step; {@link #run} calls it.
   *
   * @return messages delivered, or -1 when the container is done or asked to stop
   */
  public int cycle() throws Exception {
    try {
      return cycleOnce();
    } catch (CommitFencedException e) {
      // A send found the container fenced (the broker aborted its transaction, or another
      // process took its transactional id over): no message's fault, and every task is lost,
      // as when a commit is refused.
      fenced(e);
      return 0;
    }
  }

  private int cycleOnce() throws Exception {
    if (stopRequested && !taskManager.revoking()) {
      return -1; // (a revoke under way ends first: its membership waits for it)
    }
    long now = clock.nanoTime();
    cycleNanos = now;
    delivery.cycleNanos = now; // what completions applied below count time-outs from
    if (events.pending()) {
      events.runPending(); // other threads' news, between two deliveries
      retime(); // (a commit's step may have ended, moving the commit timer)
    }
    if (taskManager.revoking()) {
      taskManager.advance(); // a revoke goes on over the cycles while the others are delivered
    }
    if (commits.check(now)) { // (a commit settled by a loss or a revoke: the permit, the timer)
      retime();
    }
    if (delivery.tasks().isEmpty()) {
      if (membershipSettled && !taskManager.restoring() && !taskManager.revoking()) {
        return -1; // a static membership gave this container nothing, for good
      }
      // Waiting to be given tasks, or for them to restore: sleep until an event comes (the
      // membership's calls and a restore's end are events) or a timer is due. (Not busy: a
      // restore beside nothing need not leave room.)
      wasBusy = false;
      caughtUp(true);
      if (now >= nextLoopTimerNanos) {
        runTimers(now);
      }
      events.await(Math.max(1_000L, Math.min(50_000_000L, nextLoopTimerNanos - now)));
      return 0;
    }
    AsyncDispatcher async = delivery.async;
    if (async != null) {
      async.applyCompletions();
    }
    boolean awaitingCompletions = delivery.awaitingCompletions();
    long timeout = awaitingCompletions ? 0 : Math.max(0, Math.min(settings.idleTimeoutMillis(),
        (nextTimer() - now) / 1_000_000));
    if (timeout > 1 && (committer.inProgress() || taskManager.revoking()
        || taskManager.restoring())) {
      // An event is on its way (a commit's step, a restore's end): a consumer that cannot be
      // woken (memory streams poll on) waits a millisecond at most.
      timeout = 1;
    }
    caughtUp(delivery.mux.nothingBuffered()); // two field reads a cycle, a volatile write on a change
    delivery.mux.refill(now, timeout);
    int delivered = delivery.deliverCycle(now);
    if (delivered > 0) {
      processed.inc(delivered); // published once per cycle, not per message
      idleCycles = 0;
    }
    if (delivery.commitAfterCycle && commits.commitIfOwner(now)) {
      delivery.commitAfterCycle = false;
      retime();
    }
    if ((delivery.stopAfterCycle && !taskManager.revoking())
        || (!delivery.active() && membershipSettled && !taskManager.restoring())) {
      return -1; // every input ended, and no task can come any more
    }
    // One compare for the loop's own timers and one volatile read for the tasks' callbacks; the
    // work is in a method of its own, so this one stays small.
    if (now >= nextLoopTimerNanos || now >= delivery.nextCallbackDue()) {
      runTimers(now);
    }
    if (delivered == 0) {
      if (wasBusy) {
        wasBusy = false;
        delivery.runIdleActions();
      }
      if (awaitingCompletions || delivery.awaitingCompletions()) {
        // Waiting for callbacks, with nothing buffered or with every task that has data at its
        // limit: sleep until one arrives (it wakes us) or a timer is due.
        long until = Math.min(nextTimer(), nextTimeoutCheckNanos);
        // A completion unparks the loop, so the sleep can last until the next timer (capped at
        // 50 ms so a stop request is noticed): no wake-ups for nothing while calls are out.
        async.awaitCompletion(Math.max(1_000L, Math.min(50_000_000L, until - now)));
      } else {
        idle(++idleCycles);
      }
    } else if (!wasBusy) {
      wasBusy = true;
    }
    return delivered;
  }

  /** Notes whether the loop is caught up with its input; publishes only a change. */
  private void caughtUp(boolean caughtUp) {
    if (caughtUp == behind) {
      behind = !caughtUp;
      behindSinceNanos = caughtUp ? -1 : cycleNanos;
    }
  }

  /**
   * Whether the loop has been behind its input for the last {@link #SATURATED_NANOS}: every
   * cycle since began with input buffered for some task. Any thread (a restore beside the tasks
   * paces itself while they are). A loop that keeps up with its input (it drains its buffers and
   * waits for the next records) is not busy, however often it delivers, so a restore beside it
   * goes at full speed: the processor time it takes is time the loop would wait.
   */
  public boolean busy() {
    long since = behindSinceNanos;
    return since >= 0 && clock.nanoTime() - since >= SATURATED_NANOS;
  }

  /** Runs the time-out check, commit, window and scheduled callbacks that are due. */
  private void runTimers(long now) {
    if (now >= nextTimeoutCheckNanos) {
      delivery.async.checkTimeouts(now);
      nextTimeoutCheckNanos = now + timeoutCheckInterval();
    }
    if (now >= commits.nextDue()) {
      commits.due(now);
    }
    if (now >= nextWindowNanos) {
      delivery.window();
      nextWindowNanos = now + settings.windowNanos();
    }
    if (now >= delivery.nextCallbackDue()) {
      delivery.runCallbacks(now);
    }
    retime();
  }

  /** The soonest of the loop's own timers, after one of them moved. */
  private void retime() {
    nextLoopTimerNanos = Math.min(Math.min(commits.nextDue(), nextWindowNanos),
        nextTimeoutCheckNanos);
  }

  /** When the next commit, window or scheduled callback is due. */
  private long nextTimer() {
    return Math.min(Math.min(commits.nextDue(), nextWindowNanos), delivery.nextCallbackDue());
  }

  private void commitQuietly() {
    try {
      commit();
    } catch (RuntimeException e) {
      LOG.error("container {}: final commit after a task failure failed too", containerId, e);
    }
  }

  private void idle(int cycles) {
    // Back off while there is nothing to do: spin, then yield, then park up to a millisecond.
    if (cycles < 50) {
      Thread.onSpinWait();
    } else if (cycles < 100) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(Math.min(1_000_000L, 1_000L << Math.min(10, cycles - 100)));
    }
  }

  /**
   * Closes the tasks, then the stores. After a clean final commit ({@code committed}), what the
   * tasks wrote to their stores as they closed is committed too: a DSL window's deletions and
   * progress, held until that commit acknowledged its results, so that a restart does not emit
   * the window again.
   *
   * @return whether the stop is still clean: {@code committed}, and that last commit, if one was
   *     needed, went through
   */
  private boolean closeTasks(boolean committed) {
    taskManager.close(); // stopping: tasks still restoring never start
    delivery.closeTasks(containerId);
    boolean clean = committed;
    if (committed && stores != null && stores.commits().anyDirty()) {
      // Straight to the committer, not through the schedule: a fence here must not lose the
      // tasks a second time (they are closed), only this commit, which a restart does again.
      try {
        committer.commit();
      } catch (RuntimeException e) {
        clean = false; // what the producers hold of it is dropped, as after a refused commit
        LOG.warn("container {}: the commit of what the tasks wrote as they closed failed (a "
            + "restart does again what it would have recorded)", containerId, e);
      }
    }
    committer.close(); // no commit in the background may sync a store closing under it
    if (stores != null) {
      stores.close(); // flushed by the final commit when the stop was clean
    }
    return clean;
  }

  private void stopSystems(boolean clean) {
    for (SystemConsumer consumer : consumers) {
      try {
        consumer.stop();
      } catch (RuntimeException e) {
        LOG.warn("container {}: consumer failed to stop", containerId, e);
      }
    }
    for (SystemProducer producer : producers) {
      try {
        producer.stop();
      } catch (RuntimeException e) {
        if (clean) {
          throw e;
        }
        LOG.warn("container {}: producer failed to stop", containerId, e);
      }
    }
  }
}
