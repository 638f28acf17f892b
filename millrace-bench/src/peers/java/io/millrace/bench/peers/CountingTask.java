package io.millrace.bench.peers;

import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;

/**
 * The container benchmark's task: it only counts, so the figure is the container's own overhead.
 * Public with a no-argument constructor so that Millrace can run it as a Samza job's
 * {@code task.class} ({@link SamzaTaskOnMillrace}); there it counts into a progress of its own.
 */
public final class CountingTask implements StreamTask {
  private final Progress progress;

  /** As Millrace makes it from {@code task.class}: its own, untimed progress. */
  public CountingTask() {
    this(Progress.untimed());
  }

  CountingTask(Progress progress) {
    this.progress = progress;
  }

  @Override
  public void process(IncomingMessageEnvelope envelope, MessageCollector collector, TaskCoordinator coordinator) {
    progress.onMessage();
  }
}
