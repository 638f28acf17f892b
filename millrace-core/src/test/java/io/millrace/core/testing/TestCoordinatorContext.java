package io.millrace.core.testing;

import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.spi.coordinator.CoordinatorContext;
import java.util.List;
import java.util.Map;

/**
 * A coordinator's context for tests that build a coordinator by hand: a job of {@code taskCount}
 * tasks over its inputs, {@code containerCount} containers in this process, no stores.
 */
public record TestCoordinatorContext(String jobName, Map<String, String> jobConfig,
    Map<String, String> coordinatorConfig, int containerCount, int taskCount, List<Input> inputs,
    List<String> stores, List<Changelog> changelogs, MetricsRegistry metrics)
    implements CoordinatorContext {
  /** A job without stores, with its own metrics. */
  public static TestCoordinatorContext of(String jobName, Map<String, String> jobConfig,
      int containerCount, int taskCount, List<Input> inputs) {
    return new TestCoordinatorContext(jobName, jobConfig, Map.of(), containerCount, taskCount,
        inputs, List.of(), List.of(), new DefaultMetricsRegistry(false));
  }
}
