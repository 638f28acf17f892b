package io.millrace.core.loop;

import io.millrace.core.async.AsyncSettings;

/**
 * The loop's timing and batching settings, read from the job's properties once.
 *
 * @param commitNanos commit this often; 0 or less: only on request and at stop
 * @param windowNanos call window() this often; 0 or less: never
 * @param batchSize messages a partition gets per turn of the chooser; 0: by the partition count
 *     ({@link #turnSize})
 * @param maxMessages messages handed over per poll of a partition
 * @param maxBytes a partition buffer's byte cap
 * @param maxTotalBytes the byte cap of all a container's partition buffers together: each
 *     partition's cap is at most this divided by the container's partition count
 * @param idleTimeoutMillis how long a lone consumer may block when nothing is buffered
 * @param async how asynchronous tasks and worker threads run
 * @param exactlyOnce {@code task.processing.guarantee=exactly-once}: a task failure commits
 *     nothing of the open interval (its transaction is aborted)
 */
public record LoopSettings(
    long commitNanos, long windowNanos, int batchSize, int maxMessages, long maxBytes,
    long maxTotalBytes, long idleTimeoutMillis, AsyncSettings async, boolean exactlyOnce) {

  /** At-least-once settings. */
  public LoopSettings(long commitNanos, long windowNanos, int batchSize, int maxMessages,
      long maxBytes, long maxTotalBytes, long idleTimeoutMillis, AsyncSettings async) {
    this(commitNanos, windowNanos, batchSize, maxMessages, maxBytes, maxTotalBytes,
        idleTimeoutMillis, async, false);
  }

  /** Partitions up to which {@code task.consumer.batch.size=auto} is strict round-robin. */
  static final int ROUND_ROBIN_PARTITIONS = 64;
  /** The most messages a turn of {@code task.consumer.batch.size=auto} takes. */
  static final int MAX_AUTO_TURN = 32;

  /**
   * Messages a partition gets per turn of the chooser when the container has {@code partitions}.
   * Under {@code auto}: one each up to 64 partitions, then one more per 64 partitions, up to 32.
   * A turn touches the partition's buffer, task, collector and offsets: with a thousand partitions
   * visited one message each those no longer stay in the core's caches, and the container ran at a
   * third of its speed at 8 partitions; 15 messages a turn there brought it to three quarters
   * (issue 35), while a round of turns over all partitions still takes well under a millisecond.
   */
  public int turnSize(int partitions) {
    if (batchSize > 0) {
      return batchSize;
    }
    return Math.max(1, Math.min(MAX_AUTO_TURN, partitions / ROUND_ROBIN_PARTITIONS));
  }

  /** The byte cap of each of {@code partitions} buffers: the smaller of the two bounds. */
  public long partitionBytes(int partitions) {
    return Math.max(1, Math.min(maxBytes, maxTotalBytes / Math.max(1, partitions)));
  }
}
