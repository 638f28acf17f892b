package io.millrace.test;

import io.millrace.api.Cancellable;
import io.millrace.api.OutputStream;
import io.millrace.api.ScheduledCallback;
import io.millrace.api.StreamPartition;
import io.millrace.api.TaskContext;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The task's context under the driver: its partition, inputs, keys, outputs and stores. */
final class DriverContext implements TaskContext {
  private final int partition;
  private final List<StreamPartition> inputs = new ArrayList<>();
  private final Map<String, String> config;
  private final CapturedOutputs outputs;
  private final TaskStores stores;
  private final MetricsRegistry metrics = new DefaultMetricsRegistry(false);
  private final List<Runnable> idleActions = new ArrayList<>();

  private final DriverTimers timers;

  DriverContext(int partition, List<String> inputs, Map<String, String> config,
      CapturedOutputs outputs, TaskStores stores, DriverTimers timers) {
    this.timers = timers;
    this.partition = partition;
    for (String input : inputs) {
      this.inputs.add(new StreamPartition(config.getOrDefault("streams." + input + ".system",
          "test"), input, partition));
    }
    this.config = config;
    this.outputs = outputs;
    this.stores = stores;
  }

  @Override
  public String taskName() {
    return "Partition " + partition;
  }

  @Override
  public int partitionNumber() {
    return partition;
  }

  @Override
  public List<StreamPartition> inputs() {
    return List.copyOf(inputs);
  }

  @Override
  public Map<String, String> config() {
    return config;
  }

  @Override
  public MetricsRegistry metrics() {
    return metrics;
  }

  @Override
  public OutputStream output(String streamId) {
    return outputs.output(streamId);
  }

  @Override
  public <K, V> KeyValueStore<K, V> store(String name) {
    return stores.get(name);
  }

  @Override
  public Cancellable schedule(Duration delay, ScheduledCallback callback) {
    return timers.schedule(delay, callback);
  }

  @Override
  public Cancellable scheduleEvery(Duration interval, ScheduledCallback callback) {
    return timers.scheduleEvery(interval, callback);
  }

  @Override
  public void whenIdle(Runnable action) {
    idleActions.add(action); // run by TaskTestDriver.idle(): the driver is never idle by itself
  }

  List<Runnable> idleActions() {
    return idleActions;
  }
}
