package io.millrace.samza.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.samza.metrics.Counter;
import org.apache.samza.metrics.Gauge;
import org.apache.samza.metrics.Metric;
import org.apache.samza.metrics.MetricsRegistry;
import org.apache.samza.metrics.Timer;

/**
 * Samza's {@link MetricsRegistry} onto Millrace's: each Samza metric stays Samza's own object
 * (the task updates it from any thread, as on Samza) and is reported through a Millrace gauge
 * that reads it, so it reaches Millrace's log, JMX and Prometheus output.
 *
 * <p>Names: the Millrace group is the registry's ({@code task-<n>} for a task's, labelled with
 * the task on Prometheus), the name is the last segment of Samza's group and the metric's name,
 * {@code <group>-<name>} ({@code MyTask-messages} for group {@code com.acme.MyTask}). A counter is
 * its count; a gauge its value when that is a number (a boolean is 1 or 0; other values are kept
 * for the task but not reported); a timer reports {@code <name>-count} and {@code <name>-total}
 * (the sum of its durations, in the unit the task updates it with).
 */
public final class SamzaMetricsRegistry implements MetricsRegistry {
  private final io.millrace.api.metrics.MetricsRegistry millrace;
  private final String group;
  private final Map<String, Metric> metrics = new ConcurrentHashMap<>();

  /**
   * @param millrace Millrace's registry
   * @param group the Millrace group the metrics go to, e.g. {@code task-3}
   */
  public SamzaMetricsRegistry(io.millrace.api.metrics.MetricsRegistry millrace, String group) {
    this.millrace = millrace;
    this.group = group;
  }

  @Override
  public Counter newCounter(String group, String name) {
    return newCounter(group, new Counter(name));
  }

  @Override
  public Counter newCounter(String group, Counter counter) {
    return (Counter) metrics.computeIfAbsent(key(group, counter.getName()), k -> {
      millrace.gauge(this.group, name(group, counter.getName()), counter::getCount);
      return counter;
    });
  }

  @Override
  public <T> Gauge<T> newGauge(String group, String name, T value) {
    return newGauge(group, new Gauge<>(name, value));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> Gauge<T> newGauge(String group, Gauge<T> gauge) {
    return (Gauge<T>) metrics.computeIfAbsent(key(group, gauge.getName()), k -> {
      Object value = gauge.getValue();
      if (value instanceof Number || value instanceof Boolean) {
        millrace.gauge(this.group, name(group, gauge.getName()), () -> asLong(gauge.getValue()));
      }
      return gauge;
    });
  }

  @Override
  public Timer newTimer(String group, String name) {
    return (Timer) metrics.computeIfAbsent(key(group, name), k -> {
      ReportedTimer timer = new ReportedTimer(name);
      register(group, timer);
      return timer;
    });
  }

  /**
   * Registers a timer the task made itself. Only what a {@link ReportedTimer} records can be
   * reported: Samza's own {@link Timer} keeps a sliding window, not a count.
   */
  @Override
  public Timer newTimer(String group, Timer timer) {
    return (Timer) metrics.computeIfAbsent(key(group, timer.getName()), k -> {
      if (timer instanceof ReportedTimer reported) {
        register(group, reported);
      }
      return timer;
    });
  }

  private void register(String group, ReportedTimer timer) {
    String base = name(group, timer.getName());
    millrace.gauge(this.group, base + "-count", timer::count);
    millrace.gauge(this.group, base + "-total", timer::total);
  }

  private static String key(String group, String name) {
    return group + '\u0000' + name;
  }

  /** The Millrace name: no dots, which Millrace's exporters read as a store's or partition's. */
  static String name(String group, String name) {
    String last = group == null ? "" : group.substring(group.lastIndexOf('.') + 1);
    String full = last.isEmpty() ? name : last + "-" + name;
    return full.replace('.', '_');
  }

  private static long asLong(Object value) {
    if (value instanceof Number number) {
      return number.longValue();
    }
    return Boolean.TRUE.equals(value) ? 1 : 0;
  }
}
