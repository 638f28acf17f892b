package io.millrace.spi.system;

/**
 * A container's transaction on a system: what the producers that send in it sent since the last
 * commit, and the checkpoint written in it, become visible together or not at all. A producer
 * says it sends in one ({@link SystemProducer#transaction}); a checkpoint writer whose write
 * commits one says which ({@code CheckpointWriter#transaction}). Where every producer of a
 * container sends in the writer's transaction, the runtime takes a commit's offsets as the
 * transaction commits (it holds exactly what they cover) and may commit it on another thread
 * while the loop goes on, holding the loop's sends meanwhile (below).
 *
 * <p>Threading: {@link #holdSends} and {@link #sendHeld} on the container's loop thread; {@link
 * #dropHeldSends} on any thread.
 */
public interface Transaction {
  /**
   * Where a commit takes its offsets: the sends this thread makes from now on are held back
   * until the next commit of the transaction ends (they follow it: {@link #sendHeld}) or {@link
   * #dropHeldSends} drops them; what it sent before is in that commit. The commit (the checkpoint
   * writer's write) may then run on any one other thread.
   */
  void holdSends();

  /**
   * Once the commit that followed {@link #holdSends} ended: sends what was held, in order, into
   * the next transaction (the thread's next send would too; this is for a thread with nothing
   * more to send).
   */
  void sendHeld();

  /**
   * Ends a {@link #holdSends} without a commit (it failed before, or was aborted): the held sends
   * are dropped, as the uncommitted sends before them are.
   */
  void dropHeldSends();
}
