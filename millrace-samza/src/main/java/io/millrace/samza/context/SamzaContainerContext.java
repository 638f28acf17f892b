package io.millrace.samza.context;

import org.apache.samza.context.ContainerContext;
import org.apache.samza.job.model.ContainerModel;
import org.apache.samza.metrics.MetricsRegistry;

/** The container's metrics registry; Samza's container model has no counterpart here. */
final class SamzaContainerContext implements ContainerContext {
  private final MetricsRegistry metrics;

  SamzaContainerContext(MetricsRegistry metrics) {
    this.metrics = metrics;
  }

  @Override
  public ContainerModel getContainerModel() {
    throw new UnsupportedOperationException("getContainerModel: Millrace has no Samza container"
        + " model (a task may move between containers); docs/samza.md");
  }

  @Override
  public MetricsRegistry getContainerMetricsRegistry() {
    return metrics;
  }
}
