package io.millrace.core.embed;

import io.millrace.api.config.JobConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A job's configuration in code, for {@link Millrace#job}: the same keys as a
 * {@code .properties} file (docs/configuration.md), with shorthands for the task and its streams.
 *
 * <pre>{@code
 * RunningJob job = Millrace.job("wordcount")
 *     .task(WordCountTask.class)
 *     .input("lines", "file", "data/moby-dick.txt")
 *     .output("counts", "file", "out/wordcount")
 *     .set("task.window.ms", "1000")
 *     .start();
 * }</pre>
 */
public final class JobBuilder {
  private final Map<String, String> config = new LinkedHashMap<>();
  private ClassLoader loader = Thread.currentThread().getContextClassLoader();

  JobBuilder(String name) {
    config.put("job.name", name);
  }

  /** The task class ({@code task.class}); its class loader loads the job's other classes too. */
  public JobBuilder task(Class<?> taskClass) {
    config.put("task.class", taskClass.getName());
    loader = taskClass.getClassLoader();
    return this;
  }

  /**
   * Adds an input stream: {@code id} joins {@code task.inputs}, with its system and physical
   * name (a topic, a file, a memory stream's name).
   */
  public JobBuilder input(String id, String system, String physicalName) {
    return stream("task.inputs", id, system, physicalName);
  }

  /** Adds an output stream: {@code id} joins {@code task.outputs}, with its system and name. */
  public JobBuilder output(String id, String system, String physicalName) {
    return stream("task.outputs", id, system, physicalName);
  }

  /** Sets any key. */
  public JobBuilder set(String key, String value) {
    config.put(key, value);
    return this;
  }

  /** Sets every key of {@code values}. */
  public JobBuilder setAll(Map<String, String> values) {
    config.putAll(values);
    return this;
  }

  /** The configuration so far. */
  public Map<String, String> config() {
    return Collections.unmodifiableMap(config);
  }

  /** Plans and starts the job. */
  public RunningJob start() {
    return Millrace.start(new JobConfig(config, "the job built for " + config.get("job.name")),
        loader);
  }

  private JobBuilder stream(String listKey, String id, String system, String physicalName) {
    String list = config.get(listKey);
    config.put(listKey, list == null || list.isEmpty() ? id : list + "," + id);
    config.put("streams." + id + ".system", system);
    config.put("streams." + id + ".physical.name", physicalName);
    return this;
  }
}
