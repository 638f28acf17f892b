package io.millrace.api;

/** A task that holds resources to release when its container stops (after the final commit). */
public interface ClosableTask {
  /**
   * Called once, on the task's loop thread, after its last message and the final commit.
   *
   * @throws Exception logged; it does not undo the commit
   */
  void close() throws Exception;
}
