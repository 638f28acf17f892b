package io.millrace.core.job;

import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.core.store.ChangelogPartitions;
import java.util.List;
import java.util.Map;

/**
 * What a coordinator is told about the job and this process; {@code changelogOrder}: which
 * changelog partition holds each task's stores.
 */
record DefaultCoordinatorContext(String jobName, Map<String, String> jobConfig,
    Map<String, String> coordinatorConfig, int containerCount, int taskCount, List<Input> inputs,
    List<String> stores, List<Changelog> changelogs, MetricsRegistry metrics,
    ChangelogPartitions changelogOrder) implements CoordinatorContext {
  @Override
  public int changelogPartitionOf(int task) {
    return task < taskCount ? changelogOrder.of(task) : task;
  }
}
