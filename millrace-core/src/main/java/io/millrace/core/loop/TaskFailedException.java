package io.millrace.core.loop;

/** A task failed under {@code task.error.policy=fail}: the container stops. */
public final class TaskFailedException extends RuntimeException {
  /** Creates the exception; the message names the task, the stream, partition and offset. */
  public TaskFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
