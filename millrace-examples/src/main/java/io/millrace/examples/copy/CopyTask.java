package io.millrace.examples.copy;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/**
 * Copies every message of its inputs to the output stream {@code out}, key and value unchanged
 * (the output's partitioner places it by key). Loads a file into a Kafka topic, for instance.
 */
public final class CopyTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    collector.send("out", envelope.key(), envelope.value());
  }
}
