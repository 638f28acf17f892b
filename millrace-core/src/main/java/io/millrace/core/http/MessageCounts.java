package io.millrace.core.http;

import io.millrace.core.loop.PartitionState;
import io.millrace.core.system.MessageCounting;

/**
 * Finds the consumer that counts a partition's messages where its offsets do not (a file's are
 * byte positions), so that the status page and metrics show messages, not offsets.
 */
@FunctionalInterface
public interface MessageCounts {
  /**
   * The counting consumer of a partition, or null where its offsets count its messages.
   *
   * @param container the id of the container that reads it
   * @param partition the partition
   */
  MessageCounting of(int container, PartitionState partition);
}
