package io.millrace.samza.context;

import io.millrace.api.Collector;
import io.millrace.api.TaskContext;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.config.StoreMapping;
import io.millrace.samza.serde.SameBytesSerde;
import io.millrace.samza.serde.SerdeRegistry;
import io.millrace.samza.store.SamzaKeyValueStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.samza.Partition;
import org.apache.samza.container.TaskName;
import org.apache.samza.job.model.TaskModel;
import org.apache.samza.metrics.MetricsRegistry;
import org.apache.samza.scheduler.CallbackScheduler;
import org.apache.samza.serializers.Serde;
import org.apache.samza.storage.kv.KeyValueStore;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.table.ReadWriteTable;
import org.apache.samza.table.ReadWriteUpdateTable;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.TaskCoordinator;

/**
 * A task's Samza context over its Millrace one: its model (name, partitions), its metrics, its
 * stores through their Samza serdes, and its callback scheduler.
 */
final class SamzaTaskContext implements org.apache.samza.context.TaskContext {
  private final TaskContext millrace;
  private final JobConfig config;
  private final SerdeRegistry serdes;
  private final TaskModel model;
  private final MetricsRegistry metrics;
  private final CallbackScheduler scheduler;
  private final Map<String, KeyValueStore<?, ?>> stores = new HashMap<>();

  SamzaTaskContext(TaskContext millrace, JobConfig config, SerdeRegistry serdes,
      Set<SystemStreamPartition> partitions, MetricsRegistry metrics,
      Function<Collector, MessageCollector> collectors,
      Function<io.millrace.api.TaskCoordinator, TaskCoordinator> coordinators) {
    this.millrace = millrace;
    this.config = config;
    this.serdes = serdes;
    this.model = new TaskModel(new TaskName(millrace.taskName()), partitions,
        new Partition(millrace.partitionNumber()));
    this.metrics = metrics;
    this.scheduler = new SamzaCallbackScheduler(millrace, collectors, coordinators);
  }

  @Override
  public TaskModel getTaskModel() {
    return model;
  }

  @Override
  public MetricsRegistry getTaskMetricsRegistry() {
    return metrics;
  }

  /**
   * The task's instance of store {@code name}.
   *
   * @throws IllegalArgumentException if the job declares no such store
   */
  @Override
  public KeyValueStore<?, ?> getStore(String name) {
    return stores.computeIfAbsent(name, n -> new SamzaKeyValueStore<>(millrace.store(n),
        serde(n, StoreMapping.KEY_SERDE), serde(n, StoreMapping.MSG_SERDE),
        same(n, StoreMapping.KEY_SERDE), same(n, StoreMapping.MSG_SERDE)));
  }

  /** The store's Samza serde, or null where it has none or Millrace's store applies its twin. */
  private Serde<Object> serde(String store, String which) {
    String key = "stores." + store + "." + which;
    return config.get(key) == null || same(store, which) != null ? null
        : serdes.serde(key, config.get(key));
  }

  private SameBytesSerde same(String store, String which) {
    return SameBytesSerde.of(config, config.get("stores." + store + "." + which));
  }

  @Override
  public <K, V, U> ReadWriteUpdateTable<K, V, U> getUpdatableTable(String tableId) {
    throw tables(tableId);
  }

  @Override
  public <K, V> ReadWriteTable<K, V> getTable(String tableId) {
    throw tables(tableId);
  }

  private static UnsupportedOperationException tables(String tableId) {
    return new UnsupportedOperationException("table " + tableId + ": Samza's tables are not"
        + " supported yet; a local table's store is reached with getStore (docs/samza.md)");
  }

  @Override
  public CallbackScheduler getCallbackScheduler() {
    return scheduler;
  }

  /** Millrace starts a partition at its checkpoint or the stream's offset default only. */
  @Override
  public void setStartingOffset(SystemStreamPartition partition, String offset) {
    throw new UnsupportedOperationException("setStartingOffset(" + partition + ", " + offset
        + "): Millrace starts each partition at its checkpoint, or at"
        + " streams.<id>.samza.offset.default (docs/samza.md)");
  }
}
