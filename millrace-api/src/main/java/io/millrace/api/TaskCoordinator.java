package io.millrace.api;

/**
 * Lets a task ask its container for a commit or a shutdown. Requests take effect after the
 * current message (or window, or end-of-stream call) returns.
 */
public interface TaskCoordinator {
  /** What a request applies to. */
  enum Scope {
    /** Only the task that asks. */
    TASK,
    /** Every task of the container. */
    CONTAINER
  }

  /**
   * Asks for a commit: output is flushed and acknowledged, then the offsets processed so far are
   * checkpointed.
   */
  void commit(Scope scope);

  /**
   * Asks to stop. {@link Scope#TASK} stops feeding this task (its offsets are committed); the
   * container stops when all its tasks have stopped. {@link Scope#CONTAINER} commits and stops the
   * container at once.
   */
  void shutdown(Scope scope);
}
