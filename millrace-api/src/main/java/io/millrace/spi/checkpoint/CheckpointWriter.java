package io.millrace.spi.checkpoint;

/**
 * Writes one container's checkpoints. Loop thread only, but for a {@link #write} after {@link
 * #holdSends}, which may run on another thread.
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
   * Whether {@link #write} also makes everything the container's producers sent since the last
   * write durable, and visible together with the offsets or not at all (a transaction). A commit
   * may then take its offsets just before the write, with the producers not flushed: what the
   * tasks sent for those offsets is in the same transaction. Default: false.
   */
  default boolean commitsWhatWasSent() {
    return false;
  }

  /**
   * Whether a write that {@link #commitsWhatWasSent} may run on another thread while the loop
   * goes on: {@link #holdSends} then holds back what the loop sends meanwhile, which goes into
   * what follows the write. Default: false.
   */
  default boolean writesBesideSends() {
    return false;
  }

  /**
   * Where a commit takes its offsets (loop thread, {@link #writesBesideSends} only): the sends
   * this thread makes from now on are held back until the next {@link #write} ends (they follow
   * it: {@link #sendHeld}) or {@link #dropHeldSends} drops them; what it sent before is in that write. Anything the
   * write needs from the loop thread's state (a group member's generation) is taken now. The
   * write may then run on any one other thread.
   */
  default void holdSends() {
    throw new UnsupportedOperationException("this checkpoint writer cannot write beside sends");
  }

  /**
   * Loop thread, once the write that followed {@link #holdSends} ended: sends what was held, in
   * order (the loop's next send would too; this is for a loop with nothing more to send).
   */
  default void sendHeld() {}

  /**
   * Ends a {@link #holdSends} without a write (the commit failed before it): the held sends are
   * dropped, as the uncommitted sends before them will be. Any thread.
   */
  default void dropHeldSends() {}
}
