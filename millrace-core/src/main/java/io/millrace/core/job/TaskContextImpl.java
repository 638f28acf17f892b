package io.millrace.core.job;

import io.millrace.api.OutputStream;
import io.millrace.api.StreamPartition;
import io.millrace.api.TaskContext;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.output.TaskCollector;
import java.util.List;
import java.util.Map;

/** A task's view of itself. */
record TaskContextImpl(String taskName, int partitionNumber, List<StreamPartition> inputs,
    Map<String, String> config, MetricsRegistry metrics, TaskCollector collector,
    List<Runnable> idleActions) implements TaskContext {
  @Override
  public void whenIdle(Runnable action) {
    idleActions.add(java.util.Objects.requireNonNull(action, "action"));
  }

  @Override
  public OutputStream output(String streamId) {
    return collector.route(streamId);
  }
}
