package io.millrace.core.job;

import io.millrace.api.Cancellable;
import io.millrace.api.CommitProgress;
import io.millrace.api.Output;
import io.millrace.api.ScheduledCallback;
import io.millrace.api.StreamPartition;
import io.millrace.api.TaskContext;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.loop.TaskScheduler;
import io.millrace.core.output.TaskCollector;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A task's view of itself (the test driver's tasks get one too). */
public record TaskContextImpl(String taskName, int partitionNumber, int taskCount,
    List<StreamPartition> inputs, Map<String, String> config, MetricsRegistry metrics,
    TaskCollector collector, List<Runnable> idleActions, Map<String, KeyValueStore<?, ?>> stores,
    TaskScheduler scheduler, CommitProgress commits) implements TaskContext {
  @Override
  public Cancellable schedule(Duration delay, ScheduledCallback callback) {
    return scheduler.schedule(delay, callback);
  }

  @Override
  public Cancellable scheduleEvery(Duration interval, ScheduledCallback callback) {
    return scheduler.scheduleEvery(interval, callback);
  }

  @Override
  public void whenIdle(Runnable action) {
    idleActions.add(java.util.Objects.requireNonNull(action, "action"));
  }

  @Override
  public Output output(String streamId) {
    return collector.resolve(streamId);
  }

  @Override
  @SuppressWarnings("unchecked") // the store's types are the job's declaration; the task names them
  public <K, V> KeyValueStore<K, V> store(String name) {
    KeyValueStore<?, ?> store = stores.get(name);
    if (store == null) {
      throw new IllegalArgumentException("task " + taskName + " asked for store '" + name
          + "', which the job does not declare (stores.<name>.factory); declared: "
          + new java.util.TreeSet<>(stores.keySet()));
    }
    return (KeyValueStore<K, V>) store;
  }
}
