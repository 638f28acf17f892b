package io.millrace.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** How Millrace's metric names and groups become Prometheus names and labels. */
class PrometheusMetricsTest {
  @Test
  void namesAreSnakeCaseInBaseUnitsWithTheGroupAndOwnerAsLabels() {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    registry.counter("container-0", "messages-processed").inc(3);
    registry.gauge("task-2", "in-2.lag", () -> 5);
    registry.gauge("task-2", "counts.size-bytes", () -> 7);
    registry.gauge("container-0", "commit-ms", () -> 1500);

    assertThat(new PrometheusMetrics(registry, "j", java.util.List::of).series())
        .extracting(s -> s.name() + s.labels() + "=" + s.value())
        .containsExactlyInAnyOrder(
            "millrace_messages_processed{container=\"0\",job=\"j\"}=3.0",
            "millrace_partition_lag{job=\"j\",partition=\"2\",stream=\"in\",task=\"2\"}=5.0",
            "millrace_store_size_bytes{job=\"j\",store=\"counts\",task=\"2\"}=7.0",
            "millrace_commit_seconds{container=\"0\",job=\"j\"}=1.5");
  }

  @Test
  void aLagNobodyKnowsIsLeftOutRatherThanShownAsMinusOne() {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    registry.gauge("task-0", "in-0.lag", () -> -1); // the loop's: no head reported yet
    registry.gauge("task-0", "in-0.buffered", () -> 0);
    registry.gauge("task-1", "in-1.lag", () -> 0);

    assertThat(new PrometheusMetrics(registry, "j", java.util.List::of).series())
        .extracting(s -> s.name() + s.labels() + "=" + s.value())
        .containsExactlyInAnyOrder(
            "millrace_partition_buffered{job=\"j\",partition=\"0\",stream=\"in\",task=\"0\"}=0.0",
            "millrace_partition_lag{job=\"j\",partition=\"1\",stream=\"in\",task=\"1\"}=0.0");
  }

  @Test
  void aTasksMetricNamedLikeAReservedSuffixOrOfTwoKindsDoesNotFailTheScrape() throws Exception {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    registry.counter("task-0", "requests-total").inc(2); // Prometheus reserves _total
    registry.counter("task-0", "retries").inc();
    registry.gauge("task-1", "retries", () -> -1); // the same name, another kind

    ByteArrayOutputStream text = new ByteArrayOutputStream();
    assertThatCode(() -> new PrometheusTextFormatWriter(false)
        .write(text, new PrometheusMetrics(registry, "j", java.util.List::of).collect()))
        .doesNotThrowAnyException();
    assertThat(text.toString(StandardCharsets.UTF_8))
        .contains("millrace_requests_total{job=\"j\",task=\"0\"} 2.0")
        .contains("millrace_retries_total{job=\"j\",task=\"0\"} 1.0")
        .doesNotContain("task=\"1\"");
  }
}
