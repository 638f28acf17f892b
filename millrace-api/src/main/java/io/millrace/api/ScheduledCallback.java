package io.millrace.api;

/**
 * Work a task scheduled for later ({@link TaskContext#schedule}, {@link TaskContext#scheduleEvery}):
 * Samza's scheduled callback, Kafka Streams' punctuation. It runs on the task's loop thread,
 * between messages, like {@link WindowableTask#window}; what it sends carries no timestamp.
 */
@FunctionalInterface
public interface ScheduledCallback {
  /**
   * Runs the scheduled work.
   *
   * @param collector the task's collector
   * @param coordinator the task's coordinator (commit and shutdown requests)
   * @throws Exception to fail the task, as a {@code window} that throws does
   */
  void onCallback(Collector collector, TaskCoordinator coordinator) throws Exception;
}
