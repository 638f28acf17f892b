package io.millrace.api;

/**
 * A task called on a timer as well as per message: every {@code task.window.ms} milliseconds, on
 * its loop thread, between messages (never concurrently with {@code process}).
 */
public interface WindowableTask {
  /**
   * Called when the window timer fires.
   *
   * @param collector where to send output messages
   * @param coordinator to ask for a commit or a shutdown
   * @throws Exception handled as a task failure ({@code task.error.policy=fail} stops the job)
   */
  void window(Collector collector, TaskCoordinator coordinator) throws Exception;
}
