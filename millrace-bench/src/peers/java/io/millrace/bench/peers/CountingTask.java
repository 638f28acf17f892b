package io.millrace.bench.peers;

import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;

/** The container benchmark's task: it only counts, so the figure is the container's own overhead. */
final class CountingTask implements StreamTask {
  private final Progress progress;

  CountingTask(Progress progress) {
    this.progress = progress;
  }

  @Override
  public void process(IncomingMessageEnvelope envelope, MessageCollector collector, TaskCoordinator coordinator) {
    progress.onMessage();
  }
}
