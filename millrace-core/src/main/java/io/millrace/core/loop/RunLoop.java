package io.millrace.core.loop;

import io.millrace.api.TaskCoordinator.Scope;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.metrics.Timer;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.WorkerPool;
import io.millrace.core.choose.Chooser;
import io.millrace.core.commit.Committer;
import io.millrace.core.store.ContainerStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.concurrent.ExecutorService;
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
public final class RunLoop implements ConsumerMultiplexer.Listener {
  static final Logger LOG = LoggerFactory.getLogger(RunLoop.class);
  /** Bounds the time between timer checks: ~0.1 ms of trivial work, far less than any timer. */
  static final int MESSAGES_PER_CYCLE = 4096;

  private final int containerId;
  private final LoopSettings settings;
  private final Clock clock;
  /** How long the loop must have been behind its input to count as {@link #busy}. */
  static final long SATURATED_NANOS = 100_000_000L;
  private final MetricsRegistry metrics;
  private final String metricsGroup;
  private final PartitionTable partitions = new PartitionTable();
  private final Chooser chooser = new Chooser();
  private final ConsumerMultiplexer mux;
  private final List<TaskInstance> tasks = new ArrayList<>();
  private final List<SystemConsumer> consumers;
  private final List<SystemProducer> producers;
  private final Committer committer;
  private final ErrorHandler errors;
  /** The container's stores, or null. */
  private final ContainerStores stores;
  /** Async tasks and worker-pool tasks, or null when every task runs inline. */
  private final AsyncDispatcher async;
  private final ExecutorService pool;
  private final Counter processed;
  private final Timer processTimer;
  private final JobCoordinator coordinator;
  private final Reassigner reassigner;
  private final long settleNanos;
  /** The container's place in its job; joined at {@link #start}. */
  private ContainerMembership membership;
  private long nextMembershipPollNanos;
  /** The partitions by index, published for progress and metrics threads (a new array each time). */
  private volatile PartitionState[] published = new PartitionState[0];
  private volatile boolean stopRequested;
  /** When the loop next looks at its commits (Long.MAX_VALUE while one is in the background). */
  private long nextCommitNanos = Long.MAX_VALUE;
  /** When the next periodic commit is due. */
  private long periodicCommitNanos = Long.MAX_VALUE;
  /**
   * How often the loop looks again, while a rebalance is under way, whether it may finish a
   * commit whose step in the background ended (or may rejoin, while a commit's write is out).
   */
  private static final long COMMIT_POLL_NANOS = 1_000_000L;
  /** A commit's step in the background ended while the container could not commit. */
  private boolean finishDeferred;
  /** What other threads post to the loop: the ends of commit steps. */
  private final LoopEvents events = new LoopEvents();
  /** How long a commit waits for a synchronous task's message on the worker pool. */
  private static final long QUIESCE_NANOS = 60_000_000_000L;
  private long nextWindowNanos = Long.MAX_VALUE;
  private final CallbackTimers timers;
  private long nextTimeoutCheckNanos = Long.MAX_VALUE;
  /** The soonest of the three above. */
  private long nextLoopTimerNanos = Long.MAX_VALUE;
  private int stoppedTasks;
  private boolean stopAfterCycle;
  private boolean commitAfterCycle;
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
    this.timers = new CallbackTimers(clock);
    this.metrics = parts.metrics();
    this.consumers = parts.consumers();
    this.producers = parts.producers();
    this.committer = parts.committer();
    this.stores = parts.stores();
    this.coordinator = parts.coordinator();
    this.settleNanos = parts.settleNanos();
    if (stores != null) {
      committer.beforeHandOver(this::quiesceStoreUsers);
    }
    committer.connect(events, this::commitStepEnded);
    AsyncSettings asyncSettings = settings.async();
    this.pool = asyncSettings.poolSize() > 0
        ? WorkerPool.create(containerId, asyncSettings.poolSize(), asyncSettings.poolVirtual())
        : null;
    this.async = parts.dispatched()
        ? new AsyncDispatcher(this, asyncSettings.maxConcurrency(), asyncSettings.ordering(),
            asyncSettings.callbackTimeoutNanos(), pool)
        : null;
    this.mux = new ConsumerMultiplexer(partitions, settings.maxMessages(),
        settings.partitionBytes(1), chooser, this);
    this.metricsGroup = "container-" + containerId;
    this.processed = metrics.counter(metricsGroup, "messages-processed");
    this.processTimer = metrics.timer(metricsGroup, "process-ns");
    metrics.gauge(metricsGroup, "tasks", () -> published.length == 0 ? 0 : tasks.size());
    metrics.gauge(metricsGroup, "partitions", () -> published.length);
    this.reassigner = new Reassigner(this, parts.taskSource()); // last: it reads the metrics
    this.errors = new ErrorHandler(parts.errorPolicy(), settings.exactlyOnce(),
        parts.deadLetters(), metrics.counter(metricsGroup, "messages-skipped"),
        metrics.counter(metricsGroup, "messages-dead-lettered"));
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
    return List.of(published);
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
      long stopping = System.nanoTime();
      committedOk = commit();
      LOG.info("container {}: stopping: final commit {} in {} ms", containerId,
          committedOk ? "done" : "refused", (System.nanoTime() - stopping) / 1_000_000);
    } catch (TaskFailedException e) {
      if (!settings.exactlyOnce()) {
        // Commit what was processed before the failed message, then report the failure.
        commitQuietly();
      }
      // Under exactly-once nothing is committed: the failed message may have sent part of its
      // output, which a commit would make visible with a checkpoint that processes it again. The
      // producers' stop aborts the open transaction.
      throw e;
    } finally {
      try {
        closeTasks();
      } finally {
        if (committedOk) {
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
    membership = coordinator.join(containerId, reassigner);
    pollMembership(clock.nanoTime());
    for (SystemConsumer consumer : consumers) {
      consumer.start();
    }
    long now = clock.nanoTime();
    if (settings.commitNanos() > 0) {
      nextCommitNanos = now + settings.commitNanos();
      periodicCommitNanos = nextCommitNanos;
    }
    if (settings.windowNanos() > 0) {
      nextWindowNanos = now + settings.windowNanos();
    }
    if (async != null) {
      nextTimeoutCheckNanos = now + timeoutCheckInterval();
    }
    retime();
  }

  private void pollMembership(long now) {
    reassigner.finishRestores(); // tasks whose stores were restored beside the others start
    membership.poll();
    long interval = membership.pollIntervalNanos();
    nextMembershipPollNanos = interval == Long.MAX_VALUE ? Long.MAX_VALUE : now + interval;
  }

  // ---- what the Reassigner does to the container, on the loop thread ----

  int containerId() {
    return containerId;
  }

  MetricsRegistry metrics() {
    return metrics;
  }

  String metricsGroup() {
    return metricsGroup;
  }

  List<TaskInstance> tasks() {
    return tasks;
  }

  /** The container's tasks with these numbers. */
  List<TaskInstance> tasksNumbered(Set<Integer> numbers) {
    List<TaskInstance> found = new ArrayList<>();
    for (TaskInstance t : tasks) {
      if (numbers.contains(t.number)) {
        found.add(t);
      }
    }
    return found;
  }

  /**
   * Waits until no worker thread runs one of the tasks' messages (they are marked revoked, so no
   * worker starts one): a task is never closed under a thread still inside it. A worker stuck
   * past the settle time fails the container instead.
   */
  void awaitWorkers(List<TaskInstance> leaving) {
    if (pool == null) {
      return;
    }
    long deadline = System.nanoTime() + Math.max(settleNanos, 10_000_000_000L);
    for (TaskInstance t : leaving) {
      while (t.running.get() > 0) {
        if (System.nanoTime() - deadline > 0) {
          throw new TaskFailedException("task " + t.name + " is still running a message on a "
              + "worker thread; it cannot be closed and handed over under it", null);
        }
        LockSupport.parkNanos(100_000L);
      }
    }
  }

  /** Stops delivering the tasks' partitions; what is buffered for them is dropped, uncommitted. */
  void stopDelivering(List<TaskInstance> leaving) {
    List<PartitionState> stopping = new ArrayList<>();
    for (TaskInstance t : leaving) {
      stopping.addAll(List.of(t.partitions));
    }
    mux.remove(stopping);
  }

  /**
   * Gives the tasks' messages in flight until the settle time to complete (their completions are
   * applied, so the commit counts them), then abandons the rest.
   */
  void settleInFlight(List<TaskInstance> leaving) {
    if (async == null) {
      return;
    }
    awaitInFlight(leaving, t -> true, settleNanos);
    abandonInFlight(leaving);
  }

  /**
   * Applies completions until none of {@code among} that {@code which} selects has a message in
   * flight, for at most {@code nanos} (a real wait for other threads' callbacks: measured on the
   * system clock, not the loop's).
   *
   * @return a task that still has a message in flight then, or null
   */
  private TaskInstance awaitInFlight(List<TaskInstance> among, Predicate<TaskInstance> which,
      long nanos) {
    long deadline = System.nanoTime() + nanos;
    for (TaskInstance busy = inFlight(among, which); busy != null;
        busy = inFlight(among, which)) {
      if (System.nanoTime() - deadline >= 0) {
        return busy;
      }
      async.applyCompletions();
      if (inFlight(among, which) != null) {
        async.awaitCompletion(1_000_000L);
      }
    }
    return null;
  }

  /**
   * Waits for the messages in flight of the synchronous tasks on the worker pool, where the
   * container has stores: such a task's process uses its stores on a worker thread ({@code
   * task.max.concurrency=1} keeps it to one message at a time), and a commit hands the same
   * stores' caches over on this thread, which a store does not allow beside it. At most one
   * message per task; Samza's commit waits for the messages in flight too. Loop thread: the
   * committer runs it before each hand-over of the stores ({@code Committer.beforeHandOver}).
   */
  private void quiesceStoreUsers() {
    if (async == null) {
      return;
    }
    TaskInstance busy = awaitInFlight(tasks, t -> t.asyncTask == null, QUIESCE_NANOS);
    if (busy != null) {
      throw new IllegalStateException("task " + busy.name + " has had a message in process on "
          + "the worker pool for " + QUIESCE_NANOS / 1_000_000_000L + " s: a commit cannot "
          + "hand its stores over while its process may be using them");
    }
  }

  /** A task of {@code tasks} that {@code which} selects with a message in flight, or null. */
  private static TaskInstance inFlight(List<TaskInstance> tasks, Predicate<TaskInstance> which) {
    for (TaskInstance t : tasks) {
      if (t.inFlight > 0 && which.test(t)) {
        return t;
      }
    }
    return null;
  }

  /** Forgets the tasks' messages in flight: a callback that comes later changes nothing. */
  void abandonInFlight(List<TaskInstance> leaving) {
    for (TaskInstance t : leaving) {
      t.revoked = true;
      if (async != null) {
        async.abandon(t);
      }
    }
  }

  /**
   * Runs the commit protocol now.
   *
   * @return false if the commit was fenced: another member owns the tasks, which are lost now
   */
  boolean commit() {
    try {
      committer.commit();
      return true;
    } catch (CommitFencedException e) {
      fenced(e);
      return false;
    } finally {
      finishDeferred = false; // a whole commit settled the one in the background first
      rescheduleCommit();
    }
  }

  /** A commit was refused: every task of the container is lost. */
  private void fenced(CommitFencedException e) {
    // What follows is the membership's to decide (lostAll): a group rejoins, a local one stops.
    LOG.warn("container {}: {}; its tasks are lost", containerId, e.getMessage());
    reassigner.lost(reassigner.tasks());
    membership.lostAll();
  }

  /**
   * The periodic commit: begins one (in the background where the committer can), not while a
   * rebalance is under way (again once it is over), nor while one is in the background (its end
   * is an event: {@link #commitStepEnded}).
   */
  private void periodicCommit(long now) {
    if (!membership.mayCommit()) {
      return; // looked at again next cycle: nextCommitNanos stays due
    }
    try {
      if (finishDeferred) {
        finishDeferred = false;
        if (committer.inProgress()) {
          committer.finish();
        }
      } else if (!committer.inProgress() && now >= periodicCommitNanos) {
        committer.begin();
        periodicCommitNanos = now + settings.commitNanos();
      }
    } catch (CommitFencedException e) {
      fenced(e);
    }
    rescheduleCommit();
  }

  /**
   * When the loop looks at its commits next: not while one is in the background (its step's end
   * is an event), soon while a finished step waits for a rebalance to end, else at the next
   * periodic commit. After anything that may have begun, finished or dropped a commit.
   */
  private void rescheduleCommit() {
    nextCommitNanos = finishDeferred ? cycleNanos + COMMIT_POLL_NANOS
        : committer.inProgress() ? Long.MAX_VALUE : periodicCommitNanos;
    retime();
  }

  /**
   * Event: the commit in the background ended a step (its waits, or its write off the loop):
   * finished now, or once the container may commit again (a rebalance is under way).
   */
  private void commitStepEnded() {
    if (membership.mayCommit()) {
      try {
        committer.finish();
      } catch (CommitFencedException e) {
        fenced(e);
      }
    } else {
      finishDeferred = true;
    }
    rescheduleCommit();
  }

  /**
   * A revoke's commit: as {@link #commit}, but where the committer can wait in the background the
   * tasks that stay go on meanwhile (a commit on its way is finished first, then one begins that
   * covers the leaving tasks' last offsets). The membership's callback holds the rebalance until
   * this returns, as a whole commit did; only the loop's pause is shorter: its hand-over and the
   * checkpoint's write instead of every wait. Loop thread, inside the membership's poll: no
   * membership poll and no timers run meanwhile.
   *
   * @return false if the commit was fenced: another member owns the tasks, which are lost now
   */
  boolean commitBeside() {
    try {
      // One on its way that takes its offsets at its write, and has not taken them yet, holds
      // the leaving tasks' last ones: no other is needed.
      boolean covers = committer.inProgress() && committer.takesOffsetsAtWrite()
          && !committer.offsetsTaken();
      finishBeside();
      if (!covers) {
        committer.begin(); // in the background, or whole if it cannot be
        finishBeside();
      }
      return true;
    } catch (CommitFencedException e) {
      fenced(e);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during a revoke's commit", e);
    } finally {
      rescheduleCommit();
    }
  }

  /** Finishes the commit in the background, once more if it began again (its tasks changed). */
  private void finishBeside() throws InterruptedException {
    while (committer.inProgress()) {
      awaitPreparedBeside();
      finishDeferred = false; // (its end's event, when it comes, finds nothing to do)
      committer.finish();
    }
  }

  /** Delivers to the tasks that stay until the commit in the background has done its waits. */
  private void awaitPreparedBeside() throws InterruptedException {
    while (!committer.stepEnded()) {
      cycleNanos = clock.nanoTime(); // what dispatched messages count their time-outs from
      if (async != null) {
        async.applyCompletions();
      }
      mux.refill(cycleNanos, 1); // at most a millisecond's wait when nothing is buffered
      // The cycle's round of the chooser, written again: a method both share cost the loop path
      // 0.91 at batch 1 (docs/benchmarks.md, "Commits in the background"), and this path is cold.
      int delivered = 0;
      while (delivered < MESSAGES_PER_CYCLE && !stopAfterCycle && !commitAfterCycle) {
        int index = chooser.next();
        if (index < 0) {
          break;
        }
        PartitionState p = partitions.get(index);
        delivered += async != null ? deliverDispatched(p, settings.batchSize())
            : deliver(p, settings.batchSize());
      }
      if (delivered > 0) {
        processed.inc(delivered);
      } else {
        // Nothing to deliver (no task stays, a request waits for the outer cycle, or what is
        // buffered cannot go yet): wait for the commit a moment instead of spinning.
        committer.awaitStep(1_000_000L);
      }
    }
  }

  /**
   * A commit in the background ends its waits and is dropped: a loss of tasks or a stop follows,
   * and no store may close under it.
   */
  void settleCommit() {
    committer.settle();
    finishDeferred = false;
    rescheduleCommit();
  }

  /**
   * The container holds no task any more and lost the last ones without a commit: what its
   * producers sent since the last commit is dropped where they can (an aborted transaction).
   */
  void abandonUncommitted() {
    for (SystemProducer producer : producers) {
      producer.abandon();
    }
    if (stores != null) {
      stores.forgetFence(); // a fence the flusher met was the lost tasks'
    }
  }

  /** The tasks are closed and their stores released: their partitions leave the container. */
  void removeTasks(List<TaskInstance> leaving) {
    for (TaskInstance t : leaving) {
      for (PartitionState p : t.partitions) {
        p.consumer.unregister(p.index);
        chooser.remove(p.index);
        partitions.remove(p);
        removeGauges(p);
      }
      if (t.stopped) {
        stoppedTasks--;
      }
      timers.removeAll(t);
      tasks.remove(t);
    }
    relayout();
  }

  /**
   * Takes tasks: gives each input partition a dense index, registers it with its consumer and
   * puts it in the chooser and the multiplexer; the checkpoint layout follows. Not on the
   * per-message path: only when the container's tasks change.
   */
  void addTasks(List<TaskSpec> taken) {
    List<PartitionState> added = new ArrayList<>();
    for (TaskSpec spec : taken) {
      TaskInstance t = spec.task();
      t.scheduler.attach(timers, t);
      if (async != null) {
        async.attach(t);
      }
      PartitionState[] inputs = new PartitionState[spec.inputs().size()];
      for (int i = 0; i < inputs.length; i++) {
        PartitionSpec in = spec.inputs().get(i);
        PartitionState p = new PartitionState(partitions.nextIndex(), in, t,
            mux.initialBufferCapacity());
        partitions.add(p);
        in.consumer().register(p.index, in.stream(), in.id().partition(), in.start());
        chooser.add(p.index, p.priority, p.bootstrapPending(in.bootstrap()));
        if (async != null) {
          async.attach(p);
        }
        registerGauges(p);
        inputs[i] = p;
        added.add(p);
      }
      t.partitions = inputs;
      t.livePartitions = inputs.length;
      tasks.add(t);
    }
    mux.add(added);
    relayout();
  }

  /** The table changed: byte caps, the checkpoint layout and what other threads see follow. */
  private void relayout() {
    mux.setMaxBytes(settings.partitionBytes(partitions.count()));
    PartitionState[] now = partitions.snapshot();
    committer.layout(now);
    published = now;
  }

  /**
   * A partition's gauges, named for what they measure: group {@code task-<n>}, names
   * {@code <stream>-<partition>.lag} and {@code .buffered} (never by the dense index, which
   * another partition takes after a reassignment).
   */
  private void registerGauges(PartitionState p) {
    p.lagGauge = p::lag;
    p.bufferedGauge = p::buffered;
    metrics.gauge(taskGroup(p), gaugeName(p, "lag"), p.lagGauge);
    metrics.gauge(taskGroup(p), gaugeName(p, "buffered"), p.bufferedGauge);
  }

  private void removeGauges(PartitionState p) {
    metrics.removeGauge(taskGroup(p), gaugeName(p, "lag"), p.lagGauge);
    metrics.removeGauge(taskGroup(p), gaugeName(p, "buffered"), p.bufferedGauge);
  }

  private static String taskGroup(PartitionState p) {
    return "task-" + p.task.number;
  }

  private static String gaugeName(PartitionState p, String what) {
    return p.id.stream() + "-" + p.id.partition() + "." + what;
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
    if (stopRequested) {
      return -1;
    }
    long now = clock.nanoTime();
    cycleNanos = now;
    if (events.pending()) {
      events.runPending(); // other threads' news, between two deliveries
    }
    // Not while a transaction commits beside the loop with the offsets it took: a poll may
    // rejoin the group, whose next generation would refuse that commit's offsets as a zombie's.
    // (The group waits for this member's join; a commit takes 20-300 ms.)
    if (now >= nextMembershipPollNanos) {
      if (committer.offsetsTaken()) {
        nextMembershipPollNanos = now + COMMIT_POLL_NANOS; // look again, without spinning
      } else {
        pollMembership(now); // tasks may leave or arrive here, between two deliveries
      }
    }
    if (tasks.isEmpty()) {
      if (nextMembershipPollNanos == Long.MAX_VALUE) {
        return -1; // a static membership gave this container nothing, for good
      }
      // Waiting to be given tasks: sleep until the membership is due again. (Not busy: a
      // restore beside nothing need not leave room.)
      wasBusy = false;
      caughtUp(true);
      LockSupport.parkNanos(Math.max(1_000L, Math.min(50_000_000L,
          nextMembershipPollNanos - now)));
      return 0;
    }
    if (async != null) {
      async.applyCompletions();
    }
    boolean awaitingCompletions = async != null && async.outstanding() > 0;
    long timeout = awaitingCompletions ? 0 : Math.max(0, Math.min(settings.idleTimeoutMillis(),
        (nextTimer() - now) / 1_000_000));
    caughtUp(mux.nothingBuffered()); // two field reads a cycle, a volatile write on a change
    mux.refill(now, timeout);
    int delivered = 0;
    while (delivered < MESSAGES_PER_CYCLE) {
      int index = chooser.next();
      if (index < 0) {
        break;
      }
      PartitionState p = partitions.get(index);
      // The inline path stays a small method of its own (the JIT inlines it into this loop).
      delivered += async != null ? deliverDispatched(p, settings.batchSize())
          : deliver(p, settings.batchSize());
      if (stopAfterCycle || commitAfterCycle) {
        break;
      }
    }
    if (delivered > 0) {
      processed.inc(delivered); // published once per cycle, not per message
      idleCycles = 0;
    }
    if (commitAfterCycle && membership.mayCommit()) {
      commitAfterCycle = false;
      commit();
    }
    if (stopAfterCycle || (mux.activeCount() == 0 && (async == null || async.outstanding() == 0)
        && nextMembershipPollNanos == Long.MAX_VALUE)) {
      return -1; // every input ended, and no task can come any more
    }
    // One compare for the loop's own timers and one volatile read for the tasks' callbacks; the
    // work is in a method of its own, so this one stays small (C2 inlines deliver() into it:
    // -XX:+PrintInlining on bench loop-path).
    if (now >= nextLoopTimerNanos || now >= timers.nextDue()) {
      runTimers(now);
    }
    if (delivered == 0) {
      if (wasBusy) {
        wasBusy = false;
        runIdleActions();
      }
      if (async != null && async.outstanding() > 0) {
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

  /** The container's membership in its job (null before the loop starts). */
  ContainerMembership membershipOf() {
    return membership;
  }

  /**
   * Whether the loop has been behind its input for the last {@link #SATURATED_NANOS}: every
   * cycle since began with input buffered for some task. Any thread (a restore beside the tasks
   * paces itself while they are). A loop that keeps up with its input (it drains its buffers and
   * waits for the next records) is not busy, however often it delivers, so a restore beside it
   * goes at full speed: the processor time it takes is time the loop would wait.
   */
  boolean busy() {
    long since = behindSinceNanos;
    return since >= 0 && clock.nanoTime() - since >= SATURATED_NANOS;
  }

  /** Runs what tasks registered with TaskContext.whenIdle, once per idle spell. */
  private void runIdleActions() {
    for (TaskInstance t : tasks) {
      for (int i = 0; i < t.idleActions.size(); i++) {
        try {
          t.idleActions.get(i).run();
        } catch (RuntimeException e) {
          throw failedOutsideAMessage(t, "its whenIdle action", e);
        }
      }
    }
  }

  /**
   * Hands up to {@code max} buffered messages of a partition to its task, inline.
   *
   * @return how many were delivered
   */
  private int deliver(PartitionState p, int max) {
    PartitionBuffer buffer = p.buffer;
    TaskInstance t = p.task;
    int n = Math.min(max, buffer.size());
    StreamTask task = t.task;
    long last = p.lastOffset;
    long started = processTimer.enabled() ? clock.nanoTime() : 0;
    int i = 0;
    try {
      for (; i < n; i++) {
        Envelope e = buffer.poll();
        try {
          if (e.readError() == null) {
            // Its outputs carry its timestamp: one field write, no reset after (the paths that
            // send outside a message reset it themselves, off this path).
            t.collector.processing(e.timestamp());
            task.process(e, t.collector, t.coordinator);
          } else {
            errors.unreadable(t, e);
          }
        } catch (TaskFailedException rethrown) {
          throw rethrown;
        } catch (Exception failure) {
          errors.failed(t, e, failure);
        }
        last = e.offset();
      }
    } finally {
      // Written once per delivery, not per message; on a failure it stays at the last good one.
      p.lastOffset = last;
    }
    if (started != 0) {
      processTimer.update(clock.nanoTime() - started);
    }
    if (buffer.isEmpty()) {
      mux.drained(p);
    }
    if (chooser.isBootstrapPending(p.index)) {
      checkBootstrap(p, last);
    }
    if (t.coordinator.any) {
      onRequests(t);
    }
    return n;
  }

  private void onRequests(TaskInstance t) {
    if (t.coordinator.commit != null) {
      commitAfterCycle = true;
    }
    if (t.coordinator.shutdown == Scope.CONTAINER) {
      stopAfterCycle = true;
    } else if (t.coordinator.shutdown == Scope.TASK) {
      stopTask(t);
    }
    t.coordinator.clear();
  }

  private void stopTask(TaskInstance t) {
    if (t.stopped) {
      return;
    }
    t.stopped = true;
    for (PartitionState p : t.partitions) {
      mux.retire(p);
    }
    if (++stoppedTasks == tasks.size()) {
      stopAfterCycle = true;
    }
  }

  /** Delivery to an async task or a worker pool: the dispatcher owns the offsets from here. */
  private int deliverDispatched(PartitionState p, int max) {
    TaskInstance t = p.task;
    int n = async.deliver(p, max, cycleNanos);
    if (p.buffer.isEmpty()) {
      mux.drained(p);
    }
    if (t.coordinator.any) {
      onRequests(t);
    }
    return n;
  }

  // ---- called by the AsyncDispatcher, on the loop thread ----

  ErrorHandler errors() {
    return errors;
  }

  long cycleNanos() {
    return cycleNanos;
  }

  /** Lets the chooser pick a partition again, or not (its task or watermark is full). */
  void setChoosable(PartitionState p, boolean choosable) {
    if (choosable && !p.buffer.isEmpty()) {
      chooser.available(p.index);
    } else if (!choosable) {
      chooser.unavailable(p.index);
    }
  }

  /** Every message of a partition up to {@code offset} has completed: it may be committed. */
  void watermarkMoved(PartitionState p, long offset) {
    p.lastOffset = offset;
    if (chooser.isBootstrapPending(p.index)) {
      checkBootstrap(p, offset);
    }
    TaskInstance t = p.task;
    if (t.coordinator.any) {
      onRequests(t);
    }
  }

  /** A partition has nothing in flight any more; an end of stream that waited may happen now. */
  void partitionSettled(PartitionState p) {
    if (p.finishWhenSettled) {
      p.finishWhenSettled = false;
      finished(p);
    }
  }

  /**
   * A bootstrap partition has caught up when its newest message as of start is processed, or when
   * the consumer has moved past that offset and everything it handed over is processed (its
   * last offsets may hold no message: compaction, transaction markers).
   */
  private void checkBootstrap(PartitionState p, long processed) {
    if (processed >= p.newestAtStart
        || (p.position > p.newestAtStart && p.buffer.isEmpty()
            && (async == null || !async.hasOutstanding(p)))) {
      chooser.caughtUp(p.index);
    }
  }

  @Override
  public void positionReached(PartitionState p, long nextOffset) {
    if (chooser.isBootstrapPending(p.index)) {
      checkBootstrap(p, p.lastOffset == CheckpointStore.NONE ? -1 : p.lastOffset);
    }
  }

  @Override
  public void finished(PartitionState p) {
    if (async != null && async.hasOutstanding(p)) {
      p.finishWhenSettled = true; // end of stream once its messages in flight complete
      return;
    }
    TaskInstance t = p.task;
    if (--t.livePartitions == 0 && !t.stopped) {
      try {
        t.endOfStream();
      } catch (Exception e) {
        throw failedOutsideAMessage(t, "onEndOfStream", e);
      }
      if (t.coordinator.any) {
        onRequests(t);
      }
    }
  }

  /** Runs the time-out check, commit, window and scheduled callbacks that are due. */
  private void runTimers(long now) {
    if (now >= nextTimeoutCheckNanos) {
      async.checkTimeouts(now);
      nextTimeoutCheckNanos = now + timeoutCheckInterval();
    }
    if (now >= nextCommitNanos) {
      periodicCommit(now);
    }
    if (now >= nextWindowNanos) {
      window();
      nextWindowNanos = now + settings.windowNanos();
    }
    if (now >= timers.nextDue()) {
      runCallbacks(now);
    }
    retime();
  }

  /** The soonest of the loop's own timers, after one of them moved. */
  private void retime() {
    nextLoopTimerNanos = Math.min(Math.min(nextCommitNanos, nextWindowNanos),
        nextTimeoutCheckNanos);
  }

  /** When the next commit, window or scheduled callback is due. */
  private long nextTimer() {
    return Math.min(Math.min(nextCommitNanos, nextWindowNanos), timers.nextDue());
  }

  /** Runs the scheduled callbacks due at {@code now}, soonest first; periodic ones come back. */
  private void runCallbacks(long now) {
    CallbackTimers.Timer due;
    while ((due = timers.pollDue(now)) != null) {
      TaskInstance t = due.task;
      if (t.stopped || t.revoked) {
        continue;
      }
      try {
        t.collector.outsideMessage();
        due.callback.onCallback(t.collector, t.coordinator);
      } catch (Exception e) {
        throw failedOutsideAMessage(t, "a scheduled callback", e);
      }
      timers.reschedule(due, now);
      if (t.coordinator.any) {
        onRequests(t);
      }
    }
  }

  /**
   * What a task's failure outside a message (window, callback, end of stream, idle action)
   * becomes: a task failure, except a send that found the container fenced, which is no task's
   * fault and loses every task instead ({@link #cycle}), as from a message ({@link ErrorHandler}).
   */
  private static RuntimeException failedOutsideAMessage(TaskInstance t, String where,
      Exception e) {
    if (e instanceof CommitFencedException fenced) {
      return fenced;
    }
    return new TaskFailedException("task " + t.name + " failed in " + where + ": " + e, e);
  }

  private void window() {
    for (TaskInstance t : tasks) {
      if (t.windowable != null && !t.stopped) {
        try {
          t.collector.outsideMessage();
          t.windowable.window(t.collector, t.coordinator);
        } catch (Exception e) {
          throw failedOutsideAMessage(t, "window()", e);
        }
        if (t.coordinator.any) {
          onRequests(t);
        }
      }
    }
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

  private void closeTasks() {
    reassigner.abandonRestores(); // stopping: tasks still restoring never start
    if (pool != null) {
      WorkerPool.shutdown(pool);
    }
    for (TaskInstance task : tasks) {
      try {
        task.close();
      } catch (Exception e) {
        LOG.warn("container {}: task {} failed to close", containerId, task.name, e);
      }
    }
    committer.close(); // no commit in the background may sync a store closing under it
    if (stores != null) {
      stores.close(); // flushed by the final commit when the stop was clean
    }
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
