package io.millrace.api;

/**
 * How far the task's container has committed, for a task whose store writes must not become
 * durable before the messages it sent ahead of them are (Flink's checkpoint-complete notice, as
 * two counters). A commit acknowledges every message sent before it began, so a write made after
 * sending, say, a closed window's result and before the deletion of that window's state, can be
 * made safely once {@code writtenThrough() >= begun() + 1} as read at the send: the store's
 * changelog then never holds the deletion while the result may still be lost.
 *
 * <p>Under exactly-once a transaction holds the sends and the changelog together, so a task needs
 * no such wait there. Read on the task's own thread.
 */
public interface CommitProgress {
  /** How many commits the container has begun so far (whole ones too), counting from 1. */
  long begun();

  /**
   * The number of the last commit whose checkpoint was written ({@link #begun} as it began), or
   * 0: every message sent before commit {@code n} began is acknowledged once this is {@code n} or
   * more.
   */
  long writtenThrough();
}
