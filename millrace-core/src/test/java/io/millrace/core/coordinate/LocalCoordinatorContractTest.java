package io.millrace.core.coordinate;

import io.millrace.spi.coordinator.JobCoordinator;

/** The coordinator contract on {@code job.coordinator=local}: one process runs every task. */
class LocalCoordinatorContractTest extends JobCoordinatorContract {
  @Override
  protected JobCoordinator newCoordinator(int tasks, int containers) {
    return new LocalCoordinator(tasks, containers);
  }

  @Override
  protected boolean sharesAmongProcesses() {
    return false;
  }
}
