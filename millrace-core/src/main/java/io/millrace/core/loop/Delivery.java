package io.millrace.core.loop;

import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCoordinator.Scope;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.metrics.Timer;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.WorkerPool;
import io.millrace.core.choose.Chooser;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CommitFencedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * How messages reach a container's tasks: its partitions by dense index ({@link PartitionTable}),
 * their buffers and the consumers that fill them ({@link ConsumerMultiplexer}), the {@link
 * Chooser} that picks the next one, inline delivery to synchronous tasks and the {@link
 * AsyncDispatcher} for the others, the tasks' own calls outside a message (window, scheduled
 * callbacks, end of stream, idle actions), and what a task asks for meanwhile (a commit, a stop).
 *
 * <p>The loop runs it once a cycle ({@link #deliverCycle}); the task manager adds and removes the
 * tasks it runs. Loop thread only.
 *
 * <p><b>The hot path</b> is {@link #deliverCycle} and {@link #deliver}: a synchronous task is
 * called inline, with no callback object, no lock and no volatile write per message; the last
 * offset is written once per delivery. {@code deliver} stays a small method of its own so the JIT
 * inlines it into the chooser's round (-XX:+PrintInlining on {@code bench loop-path}).
 *
 * <p><b>Size.</b> Past 500 lines because the inline path, the dispatcher's callbacks and the
 * partition table they share stay in one class: the chooser's round and {@code deliver} must stay
 * one compiled unit (a round shared by a second caller cost the loop path 9% at batch 1,
 * docs/benchmarks-history.md, "Commits in the background").
 */
final class Delivery implements ConsumerMultiplexer.Listener {
  /** Bounds the time between timer checks: ~0.1 ms of trivial work, far less than any timer. */
  static final int MESSAGES_PER_CYCLE = RunLoop.MESSAGES_PER_CYCLE;
  /** How long a commit waits for a synchronous task's message on the worker pool. */
  private static final long QUIESCE_NANOS = 60_000_000_000L;

  private final LoopSettings settings;
  private final Clock clock;
  private final MetricsRegistry metrics;
  private final PartitionTable partitions = new PartitionTable();
  private final Chooser chooser = new Chooser();
  final ConsumerMultiplexer mux;
  private final List<TaskInstance> tasks = new ArrayList<>();
  private final CallbackTimers timers;
  private final ErrorHandler errors;
  private final Timer processTimer;
  /** Async tasks and worker-pool tasks, or null when every task runs inline. */
  final AsyncDispatcher async;
  private final ExecutorService pool;
  /** How long a revoke waits for the leaving tasks' messages in flight. */
  private final long settleNanos;
  /** Told the partitions, by index, whenever they change (the checkpoint's layout follows). */
  private final Consumer<PartitionState[]> layoutChanged;
  /** The partitions by index, published for progress and metrics threads (a new array each time). */
  private volatile PartitionState[] published = new PartitionState[0];
  private int stoppedTasks;
  /** Messages a partition gets per turn of the chooser, for the partitions there are now. */
  private int turnSize = 1;
  /** A task asked the container to stop (or every task stopped): the loop ends its cycle. */
  boolean stopAfterCycle;
  /** A task asked for a commit: the loop runs one after the cycle. */
  boolean commitAfterCycle;
  /**
   * The time of the current cycle, set by the loop as the cycle begins: what dispatched messages
   * count their time-outs from.
   */
  long cycleNanos;

  Delivery(ContainerParts parts, String metricsGroup, Timer processTimer,
      Consumer<PartitionState[]> layoutChanged) {
    this.settings = parts.settings();
    this.clock = parts.clock();
    this.metrics = parts.metrics();
    this.timers = new CallbackTimers(clock);
    this.processTimer = processTimer;
    this.settleNanos = parts.settleNanos();
    this.layoutChanged = layoutChanged;
    AsyncSettings asyncSettings = settings.async();
    this.pool = asyncSettings.poolSize() > 0
        ? WorkerPool.create(parts.containerId(), asyncSettings.poolSize(),
            asyncSettings.poolVirtual())
        : null;
    this.async = parts.dispatched()
        ? new AsyncDispatcher(this, asyncSettings, pool)
        : null;
    this.mux = new ConsumerMultiplexer(partitions, settings.maxMessages(),
        settings.partitionBytes(1), chooser, this);
    this.errors = new ErrorHandler(parts.errorPolicy(), settings.exactlyOnce(),
        parts.deadLetters(), metrics.counter(metricsGroup, "messages-skipped"),
        metrics.counter(metricsGroup, "messages-dead-lettered"));
  }

  // ---- the cycle's delivery ----

  /**
   * Delivers up to {@link #MESSAGES_PER_CYCLE} buffered messages, a partition at a time as the
   * chooser picks them, until nothing is choosable or a task asked for a commit or a stop.
   *
   * @return messages delivered
   */
  int deliverCycle(long now) {
    int delivered = 0;
    while (delivered < MESSAGES_PER_CYCLE) {
      int index = chooser.next();
      if (index < 0) {
        break;
      }
      PartitionState p = partitions.get(index);
      delivered += async != null ? deliverDispatched(p, turnSize) : deliver(p, turnSize);
      if (stopAfterCycle || commitAfterCycle) {
        break;
      }
    }
    return delivered;
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
    mux.delivered(p);
    if (chooser.isBootstrapPending(p.index)) {
      checkBootstrap(p, last);
    }
    if (t.coordinator.any) {
      onRequests(t);
    }
    return n;
  }

  /** Delivery to an async task or a worker pool: the dispatcher owns the offsets from here. */
  private int deliverDispatched(PartitionState p, int max) {
    TaskInstance t = p.task;
    int n = async.deliver(p, max, cycleNanos);
    mux.delivered(p);
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

  /** Whether any partition still has input to come or deliver, or a message in flight. */
  boolean active() {
    return mux.activeCount() > 0 || (async != null && async.outstanding() > 0);
  }

  /** Whether messages handed out are still out with their tasks (async or worker pool). */
  boolean awaitingCompletions() {
    return async != null && async.outstanding() > 0;
  }

  // ---- called by the AsyncDispatcher ----

  ErrorHandler errors() {
    return errors;
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

  // ---- the tasks' calls outside a message ----

  /** When the soonest scheduled callback is due (one volatile read). */
  long nextCallbackDue() {
    return timers.nextDue();
  }

  /** Runs the scheduled callbacks due at {@code now}, soonest first; periodic ones come back. */
  void runCallbacks(long now) {
    CallbackTimers.Timer due;
    while ((due = timers.pollDue(now)) != null) {
      TaskInstance t = due.task;
      if (t.stopped || t.leaving || t.revoked) {
        continue;
      }
      awaitOwnProcess(t, "a scheduled callback");
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

  /** Calls every windowable task's {@code window}. */
  void window() {
    for (TaskInstance t : tasks) {
      if (t.windowable != null && !t.stopped && !t.leaving) {
        awaitOwnProcess(t, "window()");
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

  /** Runs what tasks registered with TaskContext.whenIdle, once per idle spell. */
  void runIdleActions() {
    for (TaskInstance t : tasks) {
      if (t.leaving) {
        continue;
      }
      if (!t.idleActions.isEmpty()) {
        awaitOwnProcess(t, "its whenIdle action");
      }
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
   * What a task's failure outside a message (window, callback, end of stream, idle action)
   * becomes: a task failure, except a send that found the container fenced, which is no task's
   * fault and loses every task instead ({@link RunLoop#cycle}), as from a message ({@link
   * ErrorHandler}).
   */
  private static RuntimeException failedOutsideAMessage(TaskInstance t, String where,
      Exception e) {
    if (e instanceof CommitFencedException fenced) {
      return fenced;
    }
    return new TaskFailedException("task " + t.name + " failed in " + where + ": " + e, e);
  }

  // ---- the tasks the container runs ----

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
   * The container's partitions now, by index; other threads read their offsets racily (progress,
   * metrics).
   */
  PartitionState[] published() {
    return published;
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

  /** The table changed: byte caps, the checkpoint layout and what other threads see follow. */
  private void relayout() {
    mux.setMaxBytes(settings.partitionBytes(partitions.count()));
    turnSize = settings.turnSize(partitions.count());
    PartitionState[] now = partitions.snapshot();
    layoutChanged.accept(now);
    published = now;
  }

  /** Stops delivering the tasks' partitions; what is buffered for them is dropped, uncommitted. */
  void stopDelivering(List<TaskInstance> leaving) {
    List<PartitionState> stopping = new ArrayList<>();
    for (TaskInstance t : leaving) {
      t.leaving = true; // its window, callbacks and idle actions stop too
      stopping.addAll(List.of(t.partitions));
    }
    mux.remove(stopping);
  }

  /** How long a revoke gives the leaving tasks' messages in flight to complete. */
  long settleNanos() {
    return settleNanos;
  }

  /** Whether one of the tasks has a message in flight (async, or on the worker pool). */
  boolean inFlight(List<TaskInstance> among) {
    return async != null && inFlight(among, t -> true) != null;
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
   * Waits for the messages in flight of the synchronous tasks on the worker pool, where the
   * container has stores: such a task's process uses its stores on a worker thread ({@code
   * task.max.concurrency=1} keeps it to one message at a time), and a commit hands the same
   * stores' caches over on this thread, which a store does not allow beside it. At most one
   * message per task; Samza's commit waits for the messages in flight too. The committer runs it
   * before each hand-over of the stores ({@code Committer.beforeHandOver}).
   */
  void quiesceStoreUsers() {
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
   * A synchronous task on the worker pool may be inside {@code process} on a worker thread: its
   * window, scheduled callbacks and idle actions wait until its messages in flight complete (and
   * their outputs are applied), so that they never run beside its process, as WindowableTask
   * promises (Samza's run loop keeps the same rule). At most {@code task.max.concurrency}
   * messages, each one process call; the loop hands the task nothing new meanwhile. A message
   * still in process past the quiesce time fails the container, as a commit's wait does.
   */
  private void awaitOwnProcess(TaskInstance t, String what) {
    if (pool == null || t.asyncTask != null || t.inFlight == 0) {
      return; // (inline tasks run on this thread; an async task's processAsync returned)
    }
    if (awaitInFlight(List.of(t), x -> true, QUIESCE_NANOS) != null) {
      throw new IllegalStateException("task " + t.name + " has had a message in process on the "
          + "worker pool for " + QUIESCE_NANOS / 1_000_000_000L + " s: " + what + " cannot run "
          + "beside its process");
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

  /** The container stops: the worker pool ends and every task closes. */
  void closeTasks(int containerId) {
    if (pool != null) {
      WorkerPool.shutdown(pool);
    }
    for (TaskInstance task : tasks) {
      try {
        task.close();
      } catch (Exception e) {
        RunLoop.LOG.warn("container {}: task {} failed to close", containerId, task.name, e);
      }
    }
  }

  // ---- metrics ----

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
}
