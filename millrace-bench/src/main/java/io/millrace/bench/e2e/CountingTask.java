package io.millrace.bench.e2e;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/** The task of the container benchmark: it only counts (Samza's TestSamzaContainerPerformance). */
public final class CountingTask implements StreamTask {
  private long count;

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    count++;
  }

  /** Messages seen. */
  public long count() {
    return count;
  }
}
