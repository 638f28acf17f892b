package io.millrace.api;

/** A task that wants to set itself up before its first message (open stores, read config). */
public interface InitableTask {
  /**
   * Called once, on the task's loop thread, before any other method of the task.
   *
   * @param context the task's name, partitions, config, outputs and metrics
   * @throws Exception a failure stops the container before it processes anything
   */
  void init(TaskContext context) throws Exception;
}
