package io.millrace.api.checkpoint;

/** Writes one container's checkpoints. Loop thread only. */
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
   * Whether {@link #write} also makes everything the container's producers sent since the last
   * write durable, and visible together with the offsets or not at all (a transaction). A commit
   * may then take its offsets just before the write, with the producers not flushed: what the
   * tasks sent for those offsets is in the same transaction. Default: false.
   */
  default boolean commitsWhatWasSent() {
    return false;
  }
}
