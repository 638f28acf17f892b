package io.millrace.bench.peers;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCoordinator;

/** {@link CountingTask} on Millrace's own API: the same work, to price the Samza adapter. */
public final class MillraceCountingTask implements StreamTask {
  private final Progress progress = Progress.untimed();

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    progress.onMessage();
  }
}
