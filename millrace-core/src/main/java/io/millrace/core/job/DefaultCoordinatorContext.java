package io.millrace.core.job;

import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.api.metrics.MetricsRegistry;
import java.util.List;
import java.util.Map;

/** What a coordinator is told about the job and this process. */
record DefaultCoordinatorContext(String jobName, Map<String, String> jobConfig,
    Map<String, String> coordinatorConfig, int containerCount, int taskCount, List<Input> inputs,
    List<String> stores, List<Changelog> changelogs, MetricsRegistry metrics) implements CoordinatorContext {}
