package io.millrace.samza.checkpoint;

import io.millrace.api.config.JobConfig;
import io.millrace.api.metrics.Counter;
import io.millrace.api.metrics.Gauge;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.api.metrics.Timer;
import io.millrace.spi.system.SystemContext;
import io.millrace.spi.system.SystemFactory;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * A translated job's systems, reached through the system SPI alone (a tool outside the runtime,
 * so nothing of the core): a system's factory is the one its {@code systems.<name>.factory}
 * names, by short name ({@link ServiceLoader}) or class, as the runtime finds it.
 */
final class JobSystems {
  private final JobConfig config;
  private final String jobName;
  private final ClassLoader loader;

  JobSystems(JobConfig config, ClassLoader loader) {
    this.config = config;
    this.jobName = config.required("job.name");
    this.loader = loader;
  }

  JobConfig config() {
    return config;
  }

  ClassLoader loader() {
    return loader;
  }

  /**
   * The same systems as plain clients: no group, no transactions (a tool that writes a few
   * records outside any of the job's containers has no transactional id of its own).
   */
  JobSystems plain() {
    Map<String, String> keys = new java.util.TreeMap<>(config.asMap());
    keys.keySet().removeIf(k -> k.equals("job.coordinator") || k.startsWith("job.coordinator.")
        || k.equals("task.processing.guarantee"));
    return new JobSystems(new JobConfig(keys, config.source()), loader);
  }

  /**
   * The same systems as {@link #plain}, as a reader of committed data sees them: the job's keys
   * as under exactly-once, where a Kafka admin's upcoming offset of a partition is its last
   * stable offset (before any transaction still open), not its high watermark.
   */
  JobSystems committedReader() {
    Map<String, String> keys = new java.util.TreeMap<>(plain().config.asMap());
    keys.put("task.processing.guarantee", "exactly-once");
    return new JobSystems(new JobConfig(keys, config.source()), loader);
  }

  /** The factory of {@code system}. */
  SystemFactory factory(String system) {
    String key = "systems." + system + ".factory";
    String name = config.get(key, system);
    for (SystemFactory found : ServiceLoader.load(SystemFactory.class, loader)) {
      if (name.equals(found.shortName()) || name.equals(found.getClass().getName())) {
        return found;
      }
    }
    try {
      Class<?> type = Class.forName(name, true, loader);
      if (SystemFactory.class.isAssignableFrom(type)) {
        return (SystemFactory) type.getDeclaredConstructor().newInstance();
      }
    } catch (ReflectiveOperationException | LinkageError e) {
      // said below
    }
    throw config.bad(key, name, "a system this tool can reach: kafka (millrace-kafka on the"
        + " class path) or a SystemFactory class name");
  }

  /** The job-wide context of {@code system} (container -1, as the runtime's admin gets). */
  SystemContext context(String system) {
    return new SystemContext() {
      @Override
      public String systemName() {
        return system;
      }

      @Override
      public String jobName() {
        return jobName;
      }

      @Override
      public int containerId() {
        return -1;
      }

      @Override
      public Map<String, String> systemConfig() {
        return config.withPrefix("systems." + system + ".");
      }

      @Override
      public Map<String, String> streamConfig(String streamId) {
        return config.withPrefix("streams." + streamId + ".");
      }

      @Override
      public Map<String, String> jobConfig() {
        return config.asMap();
      }

      @Override
      public MetricsRegistry metrics() {
        return NO_METRICS;
      }
    };
  }

  /** A tool's metrics go nowhere. */
  static final MetricsRegistry NO_METRICS = new MetricsRegistry() {
    @Override
    public Counter counter(String group, String name) {
      return new Counter() {
        @Override
        public void inc() {}

        @Override
        public void inc(long n) {}

        @Override
        public long count() {
          return 0;
        }
      };
    }

    @Override
    public void gauge(String group, String name, Gauge gauge) {}

    @Override
    public Timer timer(String group, String name) {
      return new Timer() {
        @Override
        public void update(long nanos) {}

        @Override
        public boolean enabled() {
          return false;
        }

        @Override
        public long count() {
          return 0;
        }

        @Override
        public long totalNanos() {
          return 0;
        }

        @Override
        public long maxNanos() {
          return 0;
        }
      };
    }
  };
}
