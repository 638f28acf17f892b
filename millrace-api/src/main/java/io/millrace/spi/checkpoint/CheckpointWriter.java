package io.millrace.spi.checkpoint;

import io.millrace.spi.system.Transaction;

/**
 * Writes one container's checkpoints. Loop thread only, but for a {@link #write} after its
 * {@linkplain #transaction transaction} held the loop's sends, which may run on another thread.
 */
public interface CheckpointWriter {
  /**
   * Durably records the offsets; returns once they would survive a crash.
   *
   * @param offsets the last committed offset of each partition by index, or
   *     {@link CheckpointStore#NONE}
   * @throws CheckpointException if the checkpoint could not be written
   * @throws CommitFencedException if another member owns the container's tasks now: nothing of
   *     this commit is visible
   */
  void write(long[] offsets);

  /**
   * The transaction this writer's {@link #write} commits, or null (a write only records the
   * offsets). Where every producer of the container sends in it, the write also makes everything
   * they sent since the last write durable, and visible together with the offsets or not at all:
   * the runtime then takes the offsets just before the write, and may run the write on another
   * thread, the loop's sends held ({@link Transaction#holdSends}). Default: null.
   */
  default Transaction transaction() {
    return null;
  }
}
