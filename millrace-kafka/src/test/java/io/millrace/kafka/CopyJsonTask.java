package io.millrace.kafka;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/** Copies each (deserialized) message to "out" on its partition number. */
public final class CopyJsonTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    collector.send("out", envelope.partition(), envelope.key(), envelope.value());
  }
}
