package io.millrace.core.metrics;

import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes every metric to the log periodically (and once more when closed). */
public final class LogReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger("io.millrace.metrics");
  private final Supplier<Map<String, Map<String, Long>>> snapshot;
  private final ScheduledExecutorService scheduler;

  /** Starts reporting every {@code intervalMillis}. */
  public LogReporter(DefaultMetricsRegistry registry, long intervalMillis) {
    this(registry::snapshot, intervalMillis);
  }

  /**
   * Starts reporting what {@code snapshot} gives (a registry's, as the job's reporters show it:
   * see {@code io.millrace.core.http.ReportedMetrics}) every {@code intervalMillis}.
   */
  public LogReporter(Supplier<Map<String, Map<String, Long>>> snapshot, long intervalMillis) {
    this.snapshot = snapshot;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "millrace-log-reporter");
      thread.setDaemon(true);
      return thread;
    });
    scheduler.scheduleAtFixedRate(this::report, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Logs one line per metric group. */
  public void report() {
    for (Map.Entry<String, Map<String, Long>> group : snapshot.get().entrySet()) {
      LOG.info("metrics {} {}", group.getKey(), group.getValue());
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    report();
  }
}
