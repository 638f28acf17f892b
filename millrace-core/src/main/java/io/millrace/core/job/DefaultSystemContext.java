package io.millrace.core.job;

import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.system.SystemContext;
import io.millrace.core.config.JobConfig;
import java.util.Map;

/** What a system is told about the job, the container and its own keys. */
record DefaultSystemContext(String systemName, String jobName, int containerId, JobConfig config,
    MetricsRegistry metrics) implements SystemContext {
  @Override
  public Map<String, String> systemConfig() {
    return config.withPrefix("systems." + systemName + ".");
  }

  @Override
  public Map<String, String> streamConfig(String streamId) {
    return config.withPrefix("streams." + streamId + ".");
  }

  @Override
  public Map<String, String> jobConfig() {
    return config.asMap();
  }
}
