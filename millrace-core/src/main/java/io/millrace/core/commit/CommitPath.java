package io.millrace.core.commit;

/**
 * How a commit goes through its {@linkplain CommitPhase phases}: which of them the loop stands
 * still for. Chosen when the commit begins, from what the container's producers, stores and
 * checkpoint writer can do beside the loop.
 */
public enum CommitPath {
  /**
   * Every phase on the loop: a task's request, the final commit, and wherever the waits cannot
   * leave the loop (a producer that cannot flush beside sends, an engine that cannot take writes
   * beside reads, exactly-once without a transaction that holds every send).
   */
  ON_LOOP,
  /**
   * The hand-over on the loop; the waits (FLUSHING) on the commit thread while the tasks go on;
   * the checkpoint's write and the marks on the loop. Where the write commits a transaction that
   * holds every send, the loop first hands over what the stores dirtied meanwhile and takes the
   * offsets again, so the transaction holds exactly what they cover.
   */
  WAITS_OFF_LOOP,
  /**
   * As {@link #WAITS_OFF_LOOP}, but the transaction's commit and the marks run on the commit
   * thread too (WRITING): on the loop only the second hand-over, the offsets, and holding its
   * sends until the transaction committed.
   */
  WRITE_OFF_LOOP
}
