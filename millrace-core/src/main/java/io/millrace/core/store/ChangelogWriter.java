package io.millrace.core.store;

import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.system.OutputFailedException;
import io.millrace.spi.system.SystemProducer;
import java.util.List;

/**
 * Where one task's store writes its changes: partition {@code partition} (the task's number) of
 * its changelog stream, through the container's producer for that system. Keys and values go as
 * the bytes the engine holds; a delete is a null value (a tombstone, which compaction keeps last).
 */
public final class ChangelogWriter {
  private final SystemProducer producer;
  private final int index;
  private final int partition;

  /**
   * A writer.
   *
   * @param producer the producer of the changelog's system
   * @param index the index the producer knows the changelog stream by
   * @param partition the task's partition of the changelog
   */
  public ChangelogWriter(SystemProducer producer, int index, int partition) {
    this.producer = producer;
    this.index = index;
    this.partition = partition;
  }

  /**
   * Sends one flush's changes (a null value: a delete), in order, on this thread. A refused change
   * is an {@link OutputFailedException}: a flush holds the writes of many messages, so no message
   * is charged with it (the container stops; the store would otherwise lose a change). A send
   * that finds the container fenced ({@link CommitFencedException}: its transaction was aborted)
   * stays the fence: its tasks are lost, which is no failure of this store.
   */
  void sendNow(List<byte[]> keys, List<byte[]> values) {
    for (int i = 0; i < keys.size(); i++) {
      try {
        producer.send(index, partition, keys.get(i), values.get(i), -1);
      } catch (OutputFailedException | CommitFencedException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new OutputFailedException("a change to changelog partition " + partition
            + " was refused: " + e.getMessage(), e);
      }
    }
  }

  /** Whether the producer takes sends from the flusher's thread. */
  boolean concurrentSends() {
    return producer.concurrentSends();
  }

  /** The offset of the last change acknowledged, once the producer has been flushed; -1: none. */
  public long lastOffset() {
    return producer.lastOffset(index, partition);
  }

  /** The task's partition of the changelog. */
  public int partition() {
    return partition;
  }
}
