package io.millrace.core.testing;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/** Tasks over lines of text for the command line's and the embedding's tests. */
public final class LineTasks {
  private LineTasks() {}

  /** Upper-cases each line to output "out". */
  public static class UpperCaseTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      collector.send("out", 0, null, ((String) envelope.value()).toUpperCase());
    }
  }

  /** Throws on the line "boom". */
  public static class ExplodingTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      if ("boom".equals(envelope.value())) {
        throw new IllegalStateException("exploded");
      }
    }
  }
}
