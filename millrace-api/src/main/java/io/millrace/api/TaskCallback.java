package io.millrace.api;

/**
 * Says that an asynchronous message is done. Thread-safe; exactly one of {@link #complete} or
 * {@link #fail} must be called, once. A second call throws {@link IllegalStateException} naming
 * the task and the offset; a callback that never comes fails the message after
 * {@code task.callback.timeout.ms}.
 */
public interface TaskCallback {
  /** The message was processed: its output may be sent and its offset committed. */
  void complete();

  /**
   * The message failed: {@code task.error.policy} applies (fail the job, skip it, or dead-letter
   * it).
   *
   * @param error what went wrong
   */
  void fail(Throwable error);
}
