package io.millrace.samza.task;

import org.apache.samza.task.TaskCoordinator;

/**
 * Samza's {@link TaskCoordinator} over Millrace's: {@code CURRENT_TASK} is Millrace's
 * {@code TASK} scope, {@code ALL_TASKS_IN_CONTAINER} its {@code CONTAINER} scope.
 */
final class SamzaCoordinator implements TaskCoordinator {
  final io.millrace.api.TaskCoordinator millrace;

  SamzaCoordinator(io.millrace.api.TaskCoordinator millrace) {
    this.millrace = millrace;
  }

  @Override
  public void commit(RequestScope scope) {
    millrace.commit(scope(scope));
  }

  @Override
  public void shutdown(RequestScope scope) {
    millrace.shutdown(scope(scope));
  }

  private static io.millrace.api.TaskCoordinator.Scope scope(RequestScope scope) {
    return scope == RequestScope.ALL_TASKS_IN_CONTAINER
        ? io.millrace.api.TaskCoordinator.Scope.CONTAINER
        : io.millrace.api.TaskCoordinator.Scope.TASK;
  }
}
