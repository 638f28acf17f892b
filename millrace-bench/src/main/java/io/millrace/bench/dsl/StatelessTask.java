package io.millrace.bench.dsl;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.InitableTask;
import io.millrace.api.Output;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;

/** {@link BenchApps.Stateless} written as a task: the same filter, the same value, the same send. */
public final class StatelessTask implements StreamTask, InitableTask {
  private Output out;

  @Override
  public void init(TaskContext context) {
    out = context.output("out");
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    byte[] value = (byte[]) envelope.value();
    if (BenchApps.kept(value)) {
      collector.send(out, -1, envelope.key(), value.length, envelope.timestamp(), Headers.EMPTY);
    }
  }
}
