package io.millrace.core.testing;

import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.spi.system.SystemContext;
import java.util.Map;

/**
 * A system's context for tests that build a system's parts by hand: its name and keys, the job's
 * keys, and its metrics (null where the part records none); streams have no keys of their own.
 */
public record TestSystemContext(String systemName, String jobName, int containerId,
    Map<String, String> systemConfig, Map<String, String> jobConfig, MetricsRegistry metrics)
    implements SystemContext {
  /** A context with no keys and no metrics. */
  public static TestSystemContext of(String systemName, String jobName, int containerId) {
    return new TestSystemContext(systemName, jobName, containerId, Map.of(), Map.of(), null);
  }

  @Override
  public Map<String, String> streamConfig(String streamId) {
    return Map.of();
  }
}
