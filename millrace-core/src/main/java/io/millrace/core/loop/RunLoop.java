package io.millrace.core.loop;

import io.millrace.api.Coordinator.Scope;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.metrics.Timer;
import io.millrace.api.system.SystemConsumer;
import io.millrace.api.system.SystemProducer;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.WorkerPool;
import io.millrace.core.checkpoint.CheckpointStore;
import io.millrace.core.checkpoint.CheckpointWriter;
import io.millrace.core.choose.Chooser;
import io.millrace.core.output.OutputRoute;
import io.millrace.core.store.ContainerStores;
import java.util.List;
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
 *   timers: window, commit
 *   end: every partition finished -> end of stream, final commit, stop
 * </pre>
 *
 * <p>Per-partition state (last offset, task) lives in arrays indexed by the dense partition index.
 * The synchronous path calls the task directly: no callback object, no lock, no volatile write
 * per message. The clock is read once per cycle, and a cycle delivers up to
 * {@link #MESSAGES_PER_CYCLE} messages before timers and refills are looked at again.
 */
public final class RunLoop implements ConsumerMultiplexer.Listener {
  static final Logger LOG = LoggerFactory.getLogger(RunLoop.class);
  /** Bounds the time between timer checks: ~0.1 ms of trivial work, far less than any timer. */
  static final int MESSAGES_PER_CYCLE = 4096;

  private final int containerId;
  private final LoopSettings settings;
  private final ConsumerMultiplexer mux;
  private final Chooser chooser;
  private final TaskInstance[] taskOf;
  private final TaskInstance[] tasks;
  private final int[][] partitionsOfTask;
  private final long[] lastOffset;
  private final long[] newestAtStart;
  private final List<SystemConsumer> consumers;
  private final List<SystemProducer> producers;
  private final CheckpointWriter checkpoints;
  private final ErrorHandler errors;
  private final Clock clock;
  private final Counter processed;
  private final Counter commits;
  private final Timer processTimer;
  private volatile boolean stopRequested;
  private volatile boolean running;
  private long nextCommitNanos = Long.MAX_VALUE;
  private long nextWindowNanos = Long.MAX_VALUE;
  private int stoppedTasks;
  private boolean stopAfterCycle;
  private boolean commitAfterCycle;
  private int idleCycles;
  private boolean wasBusy;
  /** Async tasks and worker-pool tasks, or null when every task runs inline. */
  private final AsyncDispatcher async;
  private final ExecutorService pool;
  /** Partitions whose end of stream waits for their messages in flight. */
  private final boolean[] finishWhenSettled;
  private long cycleNanos;
  private long nextTimeoutCheckNanos = Long.MAX_VALUE;
  /** The container's stores, or null. */
  private final ContainerStores stores;
  /** Input offsets then changelog offsets, for checkpoints of a container with stores. */
  private final long[] checkpointOffsets;

  /**
   * Creates the loop; {@link #run} starts it.
   *
   * @param consumerOf each partition's consumer (partitions are already registered)
   * @param taskIndexOf each partition's task, as an index into {@code tasks}
   * @param priorities each partition's chooser priority
   * @param bootstrap whether each partition is a bootstrap partition
   * @param newestAtStart each partition's newest offset at start (for bootstrap), -1 if empty
   * @param startOffsets each partition's checkpointed offset, or {@link CheckpointStore#NONE}
   * @param pollIntervalNanos each partition's poll interval
   */
  public RunLoop(
      int containerId, LoopSettings settings, SystemConsumer[] consumerOf, int[] taskIndexOf,
      TaskInstance[] tasks, int[] priorities, boolean[] bootstrap, long[] newestAtStart,
      long[] startOffsets, long[] pollIntervalNanos, List<SystemConsumer> consumers,
      List<SystemProducer> producers, CheckpointWriter checkpoints, ErrorPolicy policy,
      OutputRoute deadLetters, MetricsRegistry metrics, Clock clock) {
    this(containerId, settings, consumerOf, taskIndexOf, tasks, priorities, bootstrap,
        newestAtStart, startOffsets, pollIntervalNanos, consumers, producers, checkpoints, policy,
        deadLetters, metrics, clock, null);
  }

  /**
   * Creates the loop of a container with stores; see the other constructor.
   *
   * @param stores the container's stores (restored at start, flushed at each commit), or null
   */
  public RunLoop(
      int containerId, LoopSettings settings, SystemConsumer[] consumerOf, int[] taskIndexOf,
      TaskInstance[] tasks, int[] priorities, boolean[] bootstrap, long[] newestAtStart,
      long[] startOffsets, long[] pollIntervalNanos, List<SystemConsumer> consumers,
      List<SystemProducer> producers, CheckpointWriter checkpoints, ErrorPolicy policy,
      OutputRoute deadLetters, MetricsRegistry metrics, Clock clock, ContainerStores stores) {
    int n = consumerOf.length;
    this.stores = stores;
    this.checkpointOffsets = stores == null ? null
        : new long[n + stores.changelogPartitions().size()];
    this.containerId = containerId;
    this.settings = settings;
    this.tasks = tasks;
    this.consumers = consumers;
    this.producers = producers;
    this.checkpoints = checkpoints;
    this.clock = clock;
    this.newestAtStart = newestAtStart;
    this.lastOffset = startOffsets.clone();
    this.taskOf = new TaskInstance[n];
    int[] counts = new int[tasks.length];
    for (int p = 0; p < n; p++) {
      taskOf[p] = tasks[taskIndexOf[p]];
      counts[taskIndexOf[p]]++;
    }
    partitionsOfTask = new int[tasks.length][];
    for (int t = 0; t < tasks.length; t++) {
      partitionsOfTask[t] = new int[counts[t]];
      counts[t] = 0;
    }
    for (int p = 0; p < n; p++) {
      partitionsOfTask[taskIndexOf[p]][counts[taskIndexOf[p]]++] = p;
    }
    AsyncSettings asyncSettings = settings.async();
    boolean anyDispatched = false;
    for (int t = 0; t < tasks.length; t++) {
      tasks[t].index = t;
      tasks[t].dispatched = tasks[t].asyncTask != null || asyncSettings.poolSize() > 0;
      anyDispatched |= tasks[t].dispatched;
    }
    this.pool = asyncSettings.poolSize() > 0
        ? WorkerPool.create(containerId, asyncSettings.poolSize(), asyncSettings.poolVirtual())
        : null;
    this.async = anyDispatched
        ? new AsyncDispatcher(this, n, tasks.length, asyncSettings.maxConcurrency(),
            asyncSettings.ordering(), asyncSettings.callbackTimeoutNanos(), pool)
        : null;
    this.finishWhenSettled = new boolean[n];
    boolean[] pending = bootstrap.clone();
    for (int p = 0; p < n; p++) {
      // A bootstrap partition that is empty, or already past its head, has nothing to read first.
      if (pending[p] && (newestAtStart[p] < 0
          || (startOffsets[p] != CheckpointStore.NONE && startOffsets[p] >= newestAtStart[p]))) {
        pending[p] = false;
      }
    }
    this.chooser = new Chooser(priorities, pending);
    this.mux = new ConsumerMultiplexer(consumerOf, pollIntervalNanos, settings.maxMessages(),
        settings.partitionBytes(n), chooser, this);
    String group = "container-" + containerId;
    this.processed = metrics.counter(group, "messages-processed");
    this.commits = metrics.counter(group, "commits");
    this.processTimer = metrics.timer(group, "process-ns");
    this.errors = new ErrorHandler(policy, deadLetters, metrics.counter(group, "messages-skipped"),
        metrics.counter(group, "messages-dead-lettered"));
    for (int p = 0; p < n; p++) {
      int index = p;
      metrics.gauge(group, "buffered." + index, () -> mux.buffered(index));
      metrics.gauge(group, "lag." + index, () -> {
        long head = mux.head(index);
        long last = lastOffset[index];
        return head < 0 ? -1 : head - (last == CheckpointStore.NONE ? 0 : last + 1);
      });
    }
  }

  /** Asks the loop to commit and stop; returns at once. Any thread. */
  public void requestStop() {
    stopRequested = true;
  }

  /** Whether the loop is between start and its final commit. */
  public boolean isRunning() {
    return running;
  }

  /** The last processed offset of each partition (read racily from other threads, for progress). */
  public long[] offsets() {
    return lastOffset;
  }

  /** Messages processed so far. */
  public long processedCount() {
    return processed.count();
  }

  /**
   * Runs the container until its inputs end, a stop is requested, or a task fails.
   *
   * @throws TaskFailedException if a task failed under {@code task.error.policy=fail} (offsets
   *     before the failed message are committed)
   */
  public void run() throws Exception {
    boolean committedOk = false;
    try {
      start();
      while (cycle() >= 0) {
        // cycle() does the work; it returns -1 when the container is done or asked to stop.
      }
      commit();
      committedOk = true;
    } catch (TaskFailedException e) {
      // Commit what was processed before the failed message, then report the failure.
      commitQuietly();
      throw e;
    } finally {
      running = false;
      closeAll(committedOk);
    }
  }

  /** Starts producers and consumers and initialises the tasks. Part of {@link #run}. */
  public void start() throws Exception {
    running = true;
    for (SystemProducer producer : producers) {
      producer.start();
    }
    for (SystemConsumer consumer : consumers) {
      consumer.start();
    }
    if (stores != null) {
      stores.restore(); // before init: a task may read its stores there
    }
    for (TaskInstance task : tasks) {
      task.init();
    }
    long now = clock.nanoTime();
    if (settings.commitNanos() > 0) {
      nextCommitNanos = now + settings.commitNanos();
    }
    if (settings.windowNanos() > 0) {
      nextWindowNanos = now + settings.windowNanos();
    }
    if (async != null) {
      nextTimeoutCheckNanos = now + timeoutCheckInterval();
    }
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
    if (stopRequested || tasks.length == 0) {
      return -1;
    }
    long now = clock.nanoTime();
    cycleNanos = now;
    if (async != null) {
      async.applyCompletions();
    }
    boolean awaitingCompletions = async != null && async.outstanding() > 0;
    long timeout = awaitingCompletions ? 0 : Math.max(0, Math.min(settings.idleTimeoutMillis(),
        (Math.min(nextCommitNanos, nextWindowNanos) - now) / 1_000_000));
    mux.refill(now, timeout);
    int delivered = 0;
    while (delivered < MESSAGES_PER_CYCLE) {
      int p = chooser.next();
      if (p < 0) {
        break;
      }
      // The inline path stays a small method of its own (the JIT inlines it into this loop).
      delivered += taskOf[p].dispatched ? deliverDispatched(p, settings.batchSize())
          : deliver(p, settings.batchSize());
      if (stopAfterCycle || commitAfterCycle) {
        break;
      }
    }
    if (delivered > 0) {
      processed.inc(delivered); // published once per cycle, not per message
      idleCycles = 0;
    }
    if (commitAfterCycle) {
      commitAfterCycle = false;
      commit();
    }
    if (stopAfterCycle || (mux.activeCount() == 0 && (async == null || async.outstanding() == 0))) {
      return -1;
    }
    if (now >= nextTimeoutCheckNanos) {
      async.checkTimeouts(now);
      nextTimeoutCheckNanos = now + timeoutCheckInterval();
    }
    if (now >= nextCommitNanos) {
      commit();
      nextCommitNanos = now + settings.commitNanos();
    }
    if (now >= nextWindowNanos) {
      window();
      nextWindowNanos = now + settings.windowNanos();
    }
    if (delivered == 0) {
      if (wasBusy) {
        wasBusy = false;
        runIdleActions();
      }
      if (async != null && async.outstanding() > 0) {
        // Waiting for callbacks, with nothing buffered or with every task that has data at its
        // limit: sleep until one arrives (it wakes us) or a timer is due.
        long until = Math.min(Math.min(nextCommitNanos, nextWindowNanos), nextTimeoutCheckNanos);
        // A completion unparks the loop, so the sleep can last until the next timer (capped at
        // 50 ms so a stop request is noticed): no wake-ups for nothing while calls are out.
        async.awaitCompletion(Math.max(1_000L, Math.min(50_000_000L, until - now)));
      } else {
        idle(++idleCycles);
      }
    } else {
      wasBusy = true;
    }
    return delivered;
  }

  /** Runs what tasks registered with TaskContext.whenIdle, once per idle spell. */
  private void runIdleActions() {
    for (TaskInstance t : tasks) {
      for (int i = 0; i < t.idleActions.size(); i++) {
        try {
          t.idleActions.get(i).run();
        } catch (RuntimeException e) {
          throw new TaskFailedException("task " + t.name + " failed in its whenIdle action: " + e, e);
        }
      }
    }
  }

  /**
   * Hands up to {@code max} buffered messages of partition {@code p} to its task, inline.
   *
   * @return how many were delivered
   */
  private int deliver(int p, int max) {
    PartitionBuffer buffer = mux.buffer(p);
    TaskInstance t = taskOf[p];
    int n = Math.min(max, buffer.size());
    StreamTask task = t.task;
    long last = lastOffset[p];
    long started = processTimer.enabled() ? clock.nanoTime() : 0;
    int i = 0;
    try {
      for (; i < n; i++) {
        Envelope e = buffer.poll();
        try {
          if (e.readError() == null) {
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
      lastOffset[p] = last;
    }
    if (started != 0) {
      processTimer.update(clock.nanoTime() - started);
    }
    if (buffer.isEmpty()) {
      mux.drained(p);
    }
    if (chooser.isBootstrapPending(p)) {
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
    for (int t2 = 0; t2 < tasks.length; t2++) {
      if (tasks[t2] == t) {
        for (int p : partitionsOfTask[t2]) {
          mux.retire(p);
        }
      }
    }
    if (++stoppedTasks == tasks.length) {
      stopAfterCycle = true;
    }
  }

  /** Delivery to an async task or a worker pool: the dispatcher owns the offsets from here. */
  private int deliverDispatched(int p, int max) {
    PartitionBuffer buffer = mux.buffer(p);
    TaskInstance t = taskOf[p];
    int n = async.deliver(p, t, buffer, max, cycleNanos);
    if (buffer.isEmpty()) {
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

  int[] partitionsOf(TaskInstance t) {
    return partitionsOfTask[t.index];
  }

  /** Lets the chooser pick a partition again, or not (its task or watermark is full). */
  void setChoosable(int p, boolean choosable) {
    if (choosable && !mux.buffer(p).isEmpty()) {
      chooser.available(p);
    } else if (!choosable) {
      chooser.unavailable(p);
    }
  }

  /** Every message of a partition up to {@code offset} has completed: it may be committed. */
  void watermarkMoved(int p, long offset) {
    lastOffset[p] = offset;
    if (chooser.isBootstrapPending(p)) {
      checkBootstrap(p, offset);
    }
    TaskInstance t = taskOf[p];
    if (t.coordinator.any) {
      onRequests(t);
    }
  }

  /** A partition has nothing in flight any more; an end of stream that waited may happen now. */
  void partitionSettled(int p) {
    if (finishWhenSettled[p]) {
      finishWhenSettled[p] = false;
      finished(p);
    }
  }

  /**
   * A bootstrap partition has caught up when its newest message as of start is processed, or when
   * the consumer has moved past that offset and everything it handed over is processed (its
   * last offsets may hold no message: compaction, transaction markers).
   */
  private void checkBootstrap(int p, long processed) {
    if (processed >= newestAtStart[p]
        || (mux.position(p) > newestAtStart[p] && mux.buffer(p).isEmpty()
            && (async == null || !async.hasOutstanding(p)))) {
      chooser.caughtUp(p);
    }
  }

  @Override
  public void positionReached(int index, long nextOffset) {
    if (chooser.isBootstrapPending(index)) {
      checkBootstrap(index, lastOffset[index] == CheckpointStore.NONE ? -1 : lastOffset[index]);
    }
  }

  @Override
  public void finished(int index) {
    if (async != null && async.hasOutstanding(index)) {
      finishWhenSettled[index] = true; // end of stream once its messages in flight complete
      return;
    }
    TaskInstance t = taskOf[index];
    if (--t.livePartitions == 0 && !t.stopped) {
      try {
        t.endOfStream();
      } catch (Exception e) {
        throw new TaskFailedException("task " + t.name + " failed in onEndOfStream: " + e, e);
      }
      if (t.coordinator.any) {
        onRequests(t);
      }
    }
  }

  private void window() {
    for (TaskInstance t : tasks) {
      if (t.windowable != null && !t.stopped) {
        try {
          t.windowable.window(t.collector, t.coordinator);
        } catch (Exception e) {
          throw new TaskFailedException("task " + t.name + " failed in window(): " + e, e);
        }
        if (t.coordinator.any) {
          onRequests(t);
        }
      }
    }
  }

  /**
   * DESIGN.md's commit protocol: stores flush (cache -> engine write batch -> changelog), outputs
   * and changelogs are flushed and acknowledged, stores record their changelog offsets, then the
   * checkpoint is written.
   */
  private void commit() {
    if (stores != null) {
      stores.flush();
    }
    for (SystemProducer producer : producers) {
      producer.flush();
    }
    if (stores == null) {
      checkpoints.write(lastOffset);
    } else {
      System.arraycopy(lastOffset, 0, checkpointOffsets, 0, lastOffset.length);
      stores.afterProducersFlushed(checkpointOffsets, lastOffset.length);
      checkpoints.write(checkpointOffsets);
    }
    commits.inc();
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

  private void closeAll(boolean clean) {
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
    if (stores != null) {
      stores.close(); // flushed by the final commit when the stop was clean
    }
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
