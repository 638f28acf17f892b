package io.millrace.core.metrics;

import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.Gauge;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.metrics.Timer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The job's metrics, by group and name. Registration takes a map lookup and happens at start;
 * updates go straight to the metric objects, never through the registry.
 */
public final class DefaultMetricsRegistry implements MetricsRegistry {
  private final boolean timersEnabled;
  private final ConcurrentMap<String, ConcurrentMap<String, Object>> groups =
      new ConcurrentHashMap<>();
  private final CopyOnWriteArrayList<Consumer<String>> groupListeners =
      new CopyOnWriteArrayList<>();

  /** A registry whose timers record only if {@code timersEnabled}. */
  public DefaultMetricsRegistry(boolean timersEnabled) {
    this.timersEnabled = timersEnabled;
  }

  private ConcurrentMap<String, Object> group(String group) {
    ConcurrentMap<String, Object> metrics = groups.get(group);
    if (metrics != null) {
      return metrics;
    }
    ConcurrentMap<String, Object> created = new ConcurrentHashMap<>();
    ConcurrentMap<String, Object> raced = groups.putIfAbsent(group, created);
    if (raced != null) {
      return raced;
    }
    for (Consumer<String> listener : groupListeners) {
      listener.accept(group);
    }
    return created;
  }

  /**
   * Calls {@code listener} with the name of each group created from now on, on the thread that
   * creates it (a task's group appears when the task starts, after the reporters did): it must
   * be quick and must not throw.
   */
  public void addGroupListener(Consumer<String> listener) {
    groupListeners.add(listener);
  }

  /** Stops calling {@code listener}. */
  public void removeGroupListener(Consumer<String> listener) {
    groupListeners.remove(listener);
  }

  /** The names of the groups that exist now. */
  public java.util.Set<String> groupNames() {
    return new java.util.TreeSet<>(groups.keySet());
  }

  @Override
  public Counter counter(String group, String name) {
    return (Counter) group(group).computeIfAbsent(name, n -> new SingleWriterCounter());
  }

  @Override
  public void gauge(String group, String name, Gauge gauge) {
    group(group).put(name, gauge);
  }

  @Override
  public void removeGauge(String group, String name, Gauge gauge) {
    group(group).remove(name, gauge);
  }

  @Override
  public Timer timer(String group, String name) {
    return (Timer) group(group).computeIfAbsent(name, n -> new SingleWriterTimer(timersEnabled));
  }

  /** What {@link #visit} hands over, metric by metric, with its kind. */
  public interface Visitor {
    /** A counter's count. */
    void counter(String group, String name, long count);

    /** A gauge's value now. */
    void gauge(String group, String name, long value);

    /** An enabled timer. */
    void timer(String group, String name, Timer timer);
  }

  /** Hands every metric to {@code visitor}, with its kind (a Prometheus scrape needs it). */
  public void visit(Visitor visitor) {
    groups.forEach((group, metrics) -> metrics.forEach((name, metric) -> {
      if (metric instanceof Counter counter) {
        visitor.counter(group, name, counter.count());
      } else if (metric instanceof Gauge gauge) {
        visitor.gauge(group, name, gauge.value());
      } else if (metric instanceof Timer timer && timer.enabled()) {
        visitor.timer(group, name, timer);
      }
    }));
  }

  /** A sorted copy of every metric's current value, for reporters: group -> name -> value. */
  public Map<String, Map<String, Long>> snapshot() {
    Map<String, Map<String, Long>> result = new TreeMap<>();
    groups.keySet().forEach(group -> result.put(group, new TreeMap<>())); // empty ones too
    visit(new Visitor() {
      @Override
      public void counter(String group, String name, long count) {
        values(group).put(name, count);
      }

      @Override
      public void gauge(String group, String name, long value) {
        values(group).put(name, value);
      }

      @Override
      public void timer(String group, String name, Timer timer) {
        Map<String, Long> values = values(group);
        values.put(name + ".count", timer.count());
        values.put(name + ".total-ns", timer.totalNanos());
        values.put(name + ".max-ns", timer.maxNanos());
      }

      private Map<String, Long> values(String group) {
        return result.computeIfAbsent(group, g -> new TreeMap<>());
      }
    });
    return result;
  }
}
