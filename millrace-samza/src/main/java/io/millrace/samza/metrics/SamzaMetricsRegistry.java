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
 *
 * <p>A task's registry is {@linkplain #close closed} when the task leaves (a rebalance moves it,
 * or the job stops): its gauges go with it. The container's registry is one per Millrace
 * registry ({@link #containerOf}), shared by all its tasks as Samza's container registry is: a
 * metric the tasks each ask for by the same group and name is one metric, which they all update.
 */
public final class SamzaMetricsRegistry implements MetricsRegistry {
  private final io.millrace.api.metrics.MetricsRegistry millrace;
  private final String group;
  private final Map<String, Metric> metrics = new ConcurrentHashMap<>();
  /** The gauges registered with Millrace, by name, to remove when the task leaves. */
  private final Map<String, io.millrace.api.metrics.Gauge> reported = new ConcurrentHashMap<>();
  /** The container registries in use, by Millrace registry, with how many tasks use each. */
  private static final Map<io.millrace.api.metrics.MetricsRegistry, SamzaMetricsRegistry>
      CONTAINERS = new java.util.IdentityHashMap<>();
  private int users;

  /**
   * The container registry over {@code millrace}, for one more task: one for all the tasks that
   * report there, until the last of them {@linkplain #releaseContainer releases} it.
   */
  public static SamzaMetricsRegistry containerOf(io.millrace.api.metrics.MetricsRegistry millrace) {
    synchronized (CONTAINERS) {
      SamzaMetricsRegistry container = CONTAINERS.computeIfAbsent(millrace,
          m -> new SamzaMetricsRegistry(m, "samza-container"));
      container.users++;
      return container;
    }
  }

  /** A task that had {@link #containerOf} left: the last one's leaving removes the registry. */
  public static void releaseContainer(io.millrace.api.metrics.MetricsRegistry millrace) {
    synchronized (CONTAINERS) {
      SamzaMetricsRegistry container = CONTAINERS.get(millrace);
      if (container != null && --container.users == 0) {
        CONTAINERS.remove(millrace);
        container.close();
      }
    }
  }

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
      report(name(group, counter.getName()), counter::getCount);
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
        report(name(group, gauge.getName()), () -> asLong(gauge.getValue()));
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
    report(base + "-count", timer::count);
    report(base + "-total", timer::total);
  }

  private void report(String name, io.millrace.api.metrics.Gauge gauge) {
    reported.put(name, gauge);
    millrace.gauge(group, name, gauge);
  }

  /**
   * Removes the registry's gauges from Millrace's (its task left): only those still its own, so
   * the task's new container, which registered its own under the same names, keeps them.
   */
  public void close() {
    reported.forEach((name, gauge) -> millrace.removeGauge(group, name, gauge));
    reported.clear();
    metrics.clear();
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
