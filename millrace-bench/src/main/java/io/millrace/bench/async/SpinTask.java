package io.millrace.bench.async;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import java.util.concurrent.atomic.LongAdder;

/** A CPU-bound synchronous task: each message spins for {@code nanos} on the calling thread. */
public final class SpinTask implements StreamTask {
  static volatile long nanos = 1_000;
  static final LongAdder PROCESSED = new LongAdder();

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    PROCESSED.increment();
  }
}
