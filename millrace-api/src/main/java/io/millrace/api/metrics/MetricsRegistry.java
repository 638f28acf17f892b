package io.millrace.api.metrics;

/**
 * Creates named metrics, grouped (e.g. {@code container-0}, {@code task.Partition 3}). Asking
 * twice for the same group and name returns the same metric. Reporters (log, JMX) read all
 * metrics periodically.
 */
public interface MetricsRegistry {
  /** A counter, created on first use. */
  Counter counter(String group, String name);

  /** Registers a gauge (replacing any gauge of the same group and name). */
  void gauge(String group, String name, Gauge gauge);

  /** A timer, created on first use; disabled unless {@code metrics.timers.enabled=true}. */
  Timer timer(String group, String name);

  /**
   * Removes {@code gauge} if it is still the one registered under the group and name (what it
   * measured is gone: a partition that left the container). Another container of the process
   * may have registered its own gauge under the name since, when the task moved to it; that one
   * stays.
   */
  default void removeGauge(String group, String name, Gauge gauge) {}
}
