package io.millrace.api;

/**
 * A task told when all of its inputs have ended. Only bounded inputs (files, finite memory
 * streams) end; a task with any unbounded input is never called.
 */
public interface EndOfStreamListener {
  /**
   * Called once, after the task's last message from its last bounded input. Output sent here is
   * part of the final commit.
   *
   * @param collector where to send output messages
   * @param coordinator to ask for a commit or a shutdown
   * @throws Exception handled as a task failure
   */
  void onEndOfStream(Collector collector, TaskCoordinator coordinator) throws Exception;
}
