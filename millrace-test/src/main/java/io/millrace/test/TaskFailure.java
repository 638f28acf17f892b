package io.millrace.test;

/** The task threw (or failed an async call): the message says on what, the cause is its error. */
public final class TaskFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  TaskFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
