package io.millrace.dsl;

import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Jobs of DSL applications for the tests, run on the test driver (stores: real, RocksDB). */
public final class DslDrivers {
  private DslDrivers() {}

  /** The keys of a job of {@code app} with memory streams, before translation. */
  public static Map<String, String> job(String name, Class<? extends StreamApplication> app,
      String... streams) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("app.class", app.getName());
    for (String stream : streams) {
      config.put("streams." + stream + ".system", "memory");
      config.put("streams." + stream + ".physical.name", name + "-" + stream);
    }
    return config;
  }

  /** A driver for partition 0 of the job, its stores under {@code stateDir}. */
  public static TaskTestDriver driver(Map<String, String> config, Path stateDir) {
    return TaskTestDriver.forJob(config).stateDir(stateDir).build();
  }
}
