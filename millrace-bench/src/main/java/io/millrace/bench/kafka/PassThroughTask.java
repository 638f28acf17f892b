package io.millrace.bench.kafka;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/** Writes each record, key and value unchanged, to {@code out} (partitioned by key). */
public final class PassThroughTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    collector.send("out", envelope.key(), envelope.value());
  }
}
