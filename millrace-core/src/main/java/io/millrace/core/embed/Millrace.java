package io.millrace.core.embed;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.config.JobFile;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Runs a job inside your own process, from a properties file, a {@link Properties}, a map, or a
 * {@link #job builder}. Each call plans the job (a bad configuration throws a
 * {@link ConfigException} naming the key) and returns once its containers are running on their
 * own threads; the job then runs until its bounded inputs end, it fails, or it is stopped.
 *
 * <pre>{@code
 * try (RunningJob job = Millrace.start(Path.of("wordcount.properties"))) {
 *   job.join(); // waits for the end; throws JobFailedException if the job failed
 * }
 * }</pre>
 *
 * <p>The job's classes (its task, serdes, systems) are loaded through the calling thread's
 * context class loader, or through the task class's own loader when the builder is given it.
 */
public final class Millrace {
  private Millrace() {}

  /**
   * Starts the job a {@code .properties} file describes; a relative path in the file is relative
   * to the file's folder. A configuration error that names one of its paths says how it was
   * written and what it is relative to.
   *
   * @throws ConfigException if the configuration is bad, or if the job's checkpoints are where an
   *     older Millrace kept them (relative to the current directory), not next to the file
   */
  public static RunningJob start(Path propertiesFile) {
    JobConfig config = JobFile.load(propertiesFile, Map.of());
    JobFile.refuseMovedCheckpoints(propertiesFile, Map.of());
    try {
      return start(config);
    } catch (ConfigException e) {
      String explained = JobFile.explainPaths(e.getMessage(), propertiesFile, Map.of());
      if (explained.equals(e.getMessage())) {
        throw e;
      }
      ConfigException more = new ConfigException(explained);
      more.initCause(e);
      throw more;
    }
  }

  /** Starts the job the properties describe. */
  public static RunningJob start(Properties properties) {
    return start(JobConfig.of(properties));
  }

  /** Starts the job the keys and values describe. */
  public static RunningJob start(Map<String, String> config) {
    return start(JobConfig.of(config));
  }

  /** Starts a job from a loaded configuration. */
  public static RunningJob start(JobConfig config) {
    return start(config, Thread.currentThread().getContextClassLoader());
  }

  /** A builder for a job named {@code name}. */
  public static JobBuilder job(String name) {
    return new JobBuilder(name);
  }

  /**
   * Plans and starts a job with {@code loader} as the context class loader of the planning and
   * of the job's threads (they inherit it from the thread that starts them).
   */
  static RunningJob start(JobConfig config, ClassLoader loader) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      JobPlan plan = JobPlanner.plan(config);
      // A start that fails (metrics.http.port taken, say) closes what it opened, the plan too.
      return new RunningJob(LocalRunner.start(plan, Clock.SYSTEM));
    } finally {
      thread.setContextClassLoader(previous);
    }
  }
}
