package io.millrace.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.Timer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class MetricsTest {
  @Test
  void sameGroupAndNameGiveTheSameCounter() {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    Counter a = registry.counter("container-0", "messages");
    a.inc(5);
    registry.counter("container-0", "messages").inc();
    assertThat(a.count()).isEqualTo(6);
    assertThat(registry.snapshot().get("container-0")).containsEntry("messages", 6L);
  }

  @Test
  void timersAreOffByDefaultAndRecordWhenEnabled() {
    Timer off = new DefaultMetricsRegistry(false).timer("g", "t");
    off.update(100);
    assertThat(off.enabled()).isFalse();
    assertThat(off.count()).isZero();

    DefaultMetricsRegistry on = new DefaultMetricsRegistry(true);
    Timer timer = on.timer("g", "t");
    timer.update(100);
    timer.update(300);
    assertThat(timer.count()).isEqualTo(2);
    assertThat(timer.totalNanos()).isEqualTo(400);
    assertThat(timer.maxNanos()).isEqualTo(300);
    assertThat(on.snapshot().get("g")).containsEntry("t.count", 2L).containsEntry("t.max-ns", 300L);
  }

  @Test
  void counterWrittenByOneThreadIsSeenByAnother() throws Exception {
    SingleWriterCounter counter = new SingleWriterCounter();
    Thread writer = new Thread(() -> {
      for (int i = 0; i < 1_000_000; i++) {
        counter.inc();
      }
    });
    writer.start();
    long last = 0;
    while (writer.isAlive()) {
      long now = counter.count();
      assertThat(now).as("a reader never sees the count go back").isGreaterThanOrEqualTo(last);
      last = now;
    }
    writer.join();
    assertThat(counter.count()).isEqualTo(1_000_000);
  }

  @Test
  void jmxReporterExposesEachGroupAsAnMBeanReadLive() throws Exception {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    Counter processed = registry.counter("container-0", "messages-processed");
    AtomicLong lag = new AtomicLong(7);
    registry.gauge("container-0", "lag.0", lag::get);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try (JmxReporter reporter = new JmxReporter(registry, "jmx-test")) {
      reporter.refresh();
      ObjectName name = new ObjectName("io.millrace:job=\"jmx-test\",group=\"container-0\"");
      assertThat(server.isRegistered(name)).isTrue();
      processed.inc(42);
      lag.set(3);
      assertThat(server.getAttribute(name, "messages-processed")).isEqualTo(42L);
      assertThat(server.getAttribute(name, "lag.0")).isEqualTo(3L);
    }
    assertThat(server.queryNames(new ObjectName("io.millrace:job=\"jmx-test\",*"), null)).isEmpty();
  }

  @Test
  void jmxReporterRegistersAGroupCreatedAfterItStartedAndNoneAfterItClosed() throws Exception {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName task = new ObjectName("io.millrace:job=\"jmx-late\",group=\"task-3\"");
    JmxReporter reporter = new JmxReporter(registry, "jmx-late");
    try {
      registry.gauge("task-3", "in-3.lag", () -> 11); // a task's group: made when it starts

      assertThat(server.getAttribute(task, "in-3.lag")).isEqualTo(11L);
    } finally {
      reporter.close();
    }
    registry.gauge("task-4", "in-4.lag", () -> 1);
    assertThat(server.queryNames(new ObjectName("io.millrace:job=\"jmx-late\",*"), null))
        .isEmpty();
  }

  @Test
  void logReporterLogsALinePerGroupWithItsMetricsInOrderAndOnceMoreWhenClosed() {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    registry.counter("container-0", "messages-processed").inc(3);
    registry.counter("container-0", "commits").inc();
    registry.gauge("task-1", "in-1.lag", () -> 42);
    // The test's logger (slf4j-simple) writes to System.err as it is at each line.
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try (LogReporter reporter = new LogReporter(registry, 3_600_000)) { // no timed report here
      reporter.report();
      registry.counter("container-0", "messages-processed").inc(2);
    } finally {
      System.setErr(original);
    }
    List<String> lines = captured.toString(StandardCharsets.UTF_8).lines()
        .filter(line -> line.contains("io.millrace.metrics")).collect(Collectors.toList());
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).contains("INFO")
        .endsWith("metrics container-0 {commits=1, messages-processed=3}");
    assertThat(lines.get(1)).endsWith("metrics task-1 {in-1.lag=42}");
    assertThat(lines.get(2)).as("closing reports once more")
        .endsWith("metrics container-0 {commits=1, messages-processed=5}");
    assertThat(lines.get(3)).endsWith("metrics task-1 {in-1.lag=42}");
  }

  @Test
  void removingAGaugeLeavesTheOneRegisteredUnderItsNameSince() {
    DefaultMetricsRegistry registry = new DefaultMetricsRegistry(false);
    io.millrace.api.metrics.Gauge first = () -> 1;
    io.millrace.api.metrics.Gauge second = () -> 2;
    registry.gauge("task-3", "in-3.lag", first);
    registry.gauge("task-3", "in-3.lag", second); // the task moved to another container
    registry.removeGauge("task-3", "in-3.lag", first); // the first container lets it go late
    assertThat(registry.snapshot().get("task-3")).containsEntry("in-3.lag", 2L);
    registry.removeGauge("task-3", "in-3.lag", second);
    assertThat(registry.snapshot().get("task-3")).doesNotContainKey("in-3.lag");
  }
}
