package io.millrace.core.http;

import io.millrace.api.metrics.Timer;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import io.millrace.core.loop.PartitionState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Millrace's metrics as Prometheus sees them, read at each scrape from the registry the loop
 * already updates (nothing is recorded twice). Names follow Prometheus' conventions: prefix
 * {@code millrace_}, snake case, base units (a {@code -ms} metric becomes {@code _seconds}),
 * counters ending in {@code _total} (added by the exposition); what Millrace puts in a metric's
 * group or name becomes labels: {@code job}, {@code container}, {@code task}, {@code stream},
 * {@code partition}, {@code store}.
 *
 * <p>A partition's lag is in messages: where its offsets do not count them (a file's are byte
 * positions) it is its consumer's estimate, and a lag nobody knows is left out rather than shown
 * as -1. A bounded input's partitions also get {@code millrace_partition_progress_ratio}.
 */
final class PrometheusMetrics implements MultiCollector {
  static final String LAG = "millrace_partition_lag";
  static final String PROGRESS = "millrace_partition_progress_ratio";
  private final DefaultMetricsRegistry registry;
  private final String job;
  private final Supplier<List<StatusSampler.Live>> partitions;

  PrometheusMetrics(DefaultMetricsRegistry registry, String job,
      Supplier<List<StatusSampler.Live>> partitions) {
    this.registry = registry;
    this.job = job;
    this.partitions = partitions;
  }

  /** One Prometheus series: its name, labels and value, and whether it is a counter. */
  record Series(String name, Labels labels, double value, boolean counter) {}

  @Override
  public MetricSnapshots collect() {
    Map<String, List<Series>> byName = new TreeMap<>();
    for (Series s : series()) {
      byName.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(s);
    }
    MetricSnapshots.Builder snapshots = MetricSnapshots.builder();
    byName.forEach((name, all) -> {
      // A name is one kind: the first series' (a task may register a gauge and a counter under
      // one name; the other kind's series are left out rather than failing the whole scrape).
      boolean counter = all.get(0).counter();
      if (counter) {
        CounterSnapshot.Builder builder = CounterSnapshot.builder().name(name).help(help(name));
        for (Series s : all) {
          if (s.counter()) {
            builder.dataPoint(CounterDataPointSnapshot.builder().labels(s.labels())
                .value(s.value()).build());
          }
        }
        snapshots.metricSnapshot(builder.build());
      } else {
        GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(name).help(help(name));
        for (Series s : all) {
          if (!s.counter()) {
            builder.dataPoint(GaugeDataPointSnapshot.builder().labels(s.labels())
                .value(s.value()).build());
          }
        }
        snapshots.metricSnapshot(builder.build());
      }
    });
    return snapshots.build();
  }

  /** Every series now. */
  List<Series> series() {
    List<Series> out = registrySeries();
    Map<String, PartitionReading> readings = new HashMap<>();
    for (StatusSampler.Live live : partitions.get()) {
      PartitionState p = live.partition();
      String task = Integer.toString(p.taskNumber());
      String stream = p.id().stream();
      String partition = Integer.toString(p.id().partition());
      readings.put(task + "/" + stream + "/" + partition, live.reading());
      if (live.reading().progress() >= 0) {
        out.add(new Series(PROGRESS, Labels.of("job", job, "partition", partition, "stream", stream,
            "task", task), live.reading().progress(), false));
      }
    }
    List<Series> shown = new ArrayList<>(out.size());
    for (Series s : out) {
      if (s.name().equals(LAG) && s.value() < 0) {
        PartitionReading reading = readings.get(s.labels().get("task") + "/"
            + s.labels().get("stream") + "/" + s.labels().get("partition"));
        if (reading == null || reading.lag() < 0) {
          continue; // unknown: absent, as Prometheus expects, rather than -1
        }
        shown.add(new Series(s.name(), s.labels(), reading.lag(), false));
      } else {
        shown.add(s);
      }
    }
    return shown;
  }

  /** The series of the registry the loop keeps. */
  private List<Series> registrySeries() {
    List<Series> out = new ArrayList<>();
    registry.visit(new DefaultMetricsRegistry.Visitor() {
      @Override
      public void counter(String group, String name, long count) {
        add(out, group, name, count, true);
      }

      @Override
      public void gauge(String group, String name, long value) {
        add(out, group, name, value, false);
      }

      @Override
      public void timer(String group, String name, Timer timer) {
        String base = name.endsWith("-ns") ? name.substring(0, name.length() - 3) : name;
        add(out, group, base + "-calls", timer.count(), true);
        add(out, group, base + "-s", timer.totalNanos() / 1e9, true);
      }
    });
    return out;
  }

  private void add(List<Series> out, String group, String name, double value, boolean counter) {
    Map<String, String> labels = new TreeMap<>();
    labels.put("job", job);
    int dash = group.lastIndexOf('-');
    String kind = dash > 0 ? group.substring(0, dash) : group;
    String number = dash > 0 ? group.substring(dash + 1) : "";
    if ((kind.equals("container") || kind.equals("task")) && isNumber(number)) {
      labels.put(kind, number);
    } else {
      labels.put("group", group);
    }
    String metric = name;
    int dot = name.lastIndexOf('.');
    if (dot > 0) { // "<stream>-<partition>.<what>": a partition's gauge
      String owner = name.substring(0, dot);
      int cut = owner.lastIndexOf('-');
      if (cut > 0 && isNumber(owner.substring(cut + 1))) {
        labels.put("stream", owner.substring(0, cut));
        labels.put("partition", owner.substring(cut + 1));
        metric = "partition-" + name.substring(dot + 1);
      } else {
        labels.put("store", owner);
        metric = "store-" + name.substring(dot + 1);
      }
    }
    double scaled = value;
    if (metric.endsWith("-epoch-ms")) {
      metric = metric.substring(0, metric.length() - "-epoch-ms".length()) + "-timestamp-seconds";
      scaled = value / 1000.0;
    } else if (metric.endsWith("-ms")) {
      metric = metric.substring(0, metric.length() - 3) + "-seconds";
      scaled = value / 1000.0;
    } else if (metric.endsWith("-s")) {
      metric = metric.substring(0, metric.length() - 2) + "-seconds";
    }
    out.add(new Series(prometheusName(metric), Labels.of(labels.keySet().toArray(String[]::new),
        labels.values().toArray(String[]::new)), scaled, counter));
  }

  /**
   * {@code millrace_} and the name in snake case, e.g. messages-processed:
   * millrace_messages_processed; the client's sanitizer then takes off a suffix it reserves (a
   * task's {@code requests-total} would otherwise fail the scrape: the exposition adds
   * {@code _total} itself).
   */
  static String prometheusName(String name) {
    String snake = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_")
        .replaceAll("^_+|_+$", "");
    return PrometheusNaming.sanitizeMetricName("millrace_" + snake);
  }

  private static boolean isNumber(String s) {
    return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
  }

  private static String help(String name) {
    return "Millrace metric " + name.substring("millrace_".length()).replace('_', ' ');
  }
}
