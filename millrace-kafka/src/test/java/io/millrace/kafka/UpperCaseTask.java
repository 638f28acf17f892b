package io.millrace.kafka;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;

/** Sends each message's value upper-cased to "out", with its key, to the same partition number. */
public final class UpperCaseTask implements StreamTask {
  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    collector.send("out", envelope.partition(), envelope.key(),
        ((String) envelope.value()).toUpperCase());
  }
}
