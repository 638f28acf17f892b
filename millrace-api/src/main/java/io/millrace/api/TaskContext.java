package io.millrace.api;

import io.millrace.api.metrics.MetricsRegistry;
import java.util.List;
import java.util.Map;

/** What a task knows about itself, handed to {@link InitableTask#init}. */
public interface TaskContext {
  /** The task's name, e.g. {@code Partition 3}; stable across restarts. */
  String taskName();

  /** The partition number this task serves in every input stream. */
  int partitionNumber();

  /**
   * How many tasks the job has (in every process of it), or -1 where that is not known: task
   * {@code k} of {@code taskCount()} serves partition {@code k}.
   */
  default int taskCount() {
    return -1;
  }

  /** The input partitions this task reads. */
  List<StreamPartition> inputs();

  /** The job's configuration, as validated at start (read-only). */
  Map<String, String> config();

  /** The container's metrics registry, for the task's own metrics. */
  MetricsRegistry metrics();

  /**
   * Resolves an output stream once, for {@link Collector#send(Output, Object, Object)}.
   *
   * @param streamId an id listed in {@code task.outputs}
   * @throws IllegalArgumentException if it is not one of the task's outputs
   */
  Output output(String streamId);

  /**
   * The task's instance of a store declared in the job's properties ({@code stores.<name>.*}).
   *
   * @param name the store's name
   * @throws IllegalArgumentException if the job declares no such store
   */
  <K, V> io.millrace.api.store.KeyValueStore<K, V> store(String name);

  /**
   * Runs {@code action} on the task's loop thread each time the container runs out of messages to
   * deliver (once per idle spell), e.g. {@code context.whenIdle(batcher::flush)} so that a
   * micro-batch does not wait for its linger time when no more requests are coming.
   *
   * @param action what to run; it must not block
   */
  void whenIdle(Runnable action);

  /**
   * Runs {@code callback} once, {@code delay} from now by the container's clock, on the task's
   * loop thread between messages (Samza's {@code scheduleCallback}). A task that leaves the
   * container (a rebalance) takes its callbacks with it. Call from {@code init}, {@code process},
   * {@code window} or a callback, or from any thread of an async task's (Samza's tasks may): the
   * container's timers take requests from any thread, and its loop sees them within a cycle.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  Cancellable schedule(java.time.Duration delay, ScheduledCallback callback);

  /**
   * Runs {@code callback} every {@code interval}, the first time one interval from now (Kafka
   * Streams' wall-clock punctuation), until cancelled. A run that falls behind (a long message)
   * is not repeated to catch up: the next is one interval after the late one.
   *
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  Cancellable scheduleEvery(java.time.Duration interval, ScheduledCallback callback);

  /**
   * How far the task's container has committed ({@link CommitProgress}): for a task that must
   * hold a store write back until what it sent before is acknowledged.
   *
   * @throws UnsupportedOperationException where the context does not count commits
   */
  default CommitProgress commits() {
    throw new UnsupportedOperationException("this task context (" + getClass().getName()
        + ") does not count commits");
  }
}
