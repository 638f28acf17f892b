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
}
