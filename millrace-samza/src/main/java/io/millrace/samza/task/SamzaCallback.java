package io.millrace.samza.task;

import org.apache.samza.task.TaskCallback;

/** Samza's {@link TaskCallback} over Millrace's: {@code failure} is Millrace's {@code fail}. */
final class SamzaCallback implements TaskCallback {
  private final io.millrace.api.TaskCallback millrace;

  SamzaCallback(io.millrace.api.TaskCallback millrace) {
    this.millrace = millrace;
  }

  @Override
  public void complete() {
    millrace.complete();
  }

  @Override
  public void failure(Throwable error) {
    millrace.fail(error);
  }
}
