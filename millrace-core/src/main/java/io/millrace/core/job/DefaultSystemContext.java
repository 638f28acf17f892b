package io.millrace.core.job;

import io.millrace.api.config.JobConfig;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.spi.system.SystemContext;
import io.millrace.core.config.CoreKeys;
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

  @Override
  public long containerBufferBytes() {
    return config.getLong(CoreKeys.BUFFER_MAX_TOTAL_BYTES, CoreKeys.DEFAULT_BUFFER_MAX_TOTAL_BYTES, 1);
  }
}
