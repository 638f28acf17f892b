package io.millrace.spi.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.spi.system.SystemProducer;
import java.util.List;
import java.util.Map;

/**
 * Where a job keeps the offsets it has processed. A checkpoint records, per input partition, the
 * offset of the last message whose processing (and output) is committed; a restart resumes after
 * it.
 */
public interface CheckpointStore extends AutoCloseable {
  /** Marks a partition without a checkpointed offset in {@link CheckpointWriter#write}. */
  long NONE = Long.MIN_VALUE;

  /**
   * Reads the last checkpoint of every partition.
   *
   * @throws CheckpointException if a checkpoint exists but cannot be read: never a silent restart
   *     from the beginning
   */
  Map<StreamPartition, Long> read();

  /**
   * Reads the last checkpoint of the partitions numbered {@code partitions} (a task's partition
   * number is its own), of every stream. A store that can read fewer partitions faster (one that
   * waits for commits pending on the partitions it reads) overrides it; the default filters
   * {@link #read()}.
   */
  default Map<StreamPartition, Long> read(java.util.Set<Integer> partitions) {
    Map<StreamPartition, Long> all = new java.util.HashMap<>(read());
    all.keySet().removeIf(p -> !partitions.contains(p.partition()));
    return all;
  }

  /**
   * A writer for one container's partitions, in the order of its dense indices.
   *
   * @param containerId the container
   * @param partitions the container's partitions, by index
   */
  CheckpointWriter writer(int containerId, List<StreamPartition> partitions);

  /**
   * A writer for one container's partitions that may commit through the container's producers:
   * a store whose checkpoint is part of a transaction with the container's outputs (Kafka, under
   * {@code job.coordinator=kafka}) finds its producer among them. Default: {@link #writer(int,
   * List)}.
   *
   * @param producers the container's producers, started
   */
  default CheckpointWriter writer(int containerId, List<StreamPartition> partitions,
      List<SystemProducer> producers) {
    return writer(containerId, partitions);
  }

  @Override
  default void close() {}
}
