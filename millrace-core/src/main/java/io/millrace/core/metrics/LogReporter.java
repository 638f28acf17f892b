package io.millrace.core.metrics;

import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes every metric to the log periodically (and once more when closed). */
public final class LogReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger("io.millrace.metrics");
  private final DefaultMetricsRegistry registry;
  private final ScheduledExecutorService scheduler;

  /** Starts reporting every {@code intervalMillis}. */
  public LogReporter(DefaultMetricsRegistry registry, long intervalMillis) {
    this.registry = registry;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "millrace-log-reporter");
      thread.setDaemon(true);
      return thread;
    });
    scheduler.scheduleAtFixedRate(this::report, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Logs one line per metric group. */
  public void report() {
    for (Map.Entry<String, Map<String, Long>> group : registry.snapshot().entrySet()) {
      LOG.info("metrics {} {}", group.getKey(), group.getValue());
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    report();
  }
}
