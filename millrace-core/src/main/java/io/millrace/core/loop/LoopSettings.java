package io.millrace.core.loop;

import io.millrace.core.async.AsyncSettings;

/**
 * The loop's timing and batching settings, read from the job's properties once.
 *
 * @param commitNanos commit this often; 0 or less: only on request and at stop
 * @param windowNanos call window() this often; 0 or less: never
 * @param batchSize messages a partition gets per turn of the chooser
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

  /** The byte cap of each of {@code partitions} buffers: the smaller of the two bounds. */
  public long partitionBytes(int partitions) {
    return Math.max(1, Math.min(maxBytes, maxTotalBytes / Math.max(1, partitions)));
  }
}
