package io.millrace.bench.scaleout;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/** Stateless: writes an {@link Emission} per record to {@code out}, on the task's own partition. */
public final class ScaleOutPassTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    int task = envelope.partition();
    collector.send("out", task, envelope.key(), Emission.now(task));
  }
}
