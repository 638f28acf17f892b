package io.millrace.samza;

import io.millrace.core.embed.Millrace;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.samza.cli.SamzaCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Samza jobs on Millrace's memory system, as a Samza job's properties describe them. */
final class SamzaTestJobs {
  static final String MEMORY_FACTORY = "org.apache.samza.system.inmemory.InMemorySystemFactory";
  static final String ROCKSDB_FACTORY =
      "org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory";
  private static final AtomicInteger UNIQUE = new AtomicInteger();

  private SamzaTestJobs() {}

  /** A name no other test uses (memory streams are process-wide). */
  static String unique(String prefix) {
    return prefix + "-" + UNIQUE.incrementAndGet();
  }

  /**
   * The keys of a Samza job reading {@code mem.<input>}, with its state under {@code state}.
   */
  /** A job file of the test resources, as a map of its keys. */
  static Map<String, String> jobFile(String resource) throws java.io.IOException {
    java.util.Properties p = new java.util.Properties();
    try (java.io.InputStream in = SamzaTestJobs.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new java.io.FileNotFoundException("no test resource " + resource);
      }
      p.load(in);
    }
    Map<String, String> config = new java.util.TreeMap<>();
    p.stringPropertyNames().forEach(k -> config.put(k, p.getProperty(k)));
    return config;
  }

  static Map<String, String> memoryJob(Class<?> task, String input, Path state) {
    Map<String, String> config = new HashMap<>();
    config.put("job.name", unique("samza-job"));
    config.put("task.class", task.getName());
    config.put("task.inputs", "mem." + input);
    config.put("systems.mem.samza.factory", MEMORY_FACTORY);
    // The tests write their input first; Samza (and so the translation) starts at upcoming.
    config.put("systems.mem.samza.offset.default", "oldest");
    config.put("job.state.dir", state.toString());
    return config;
  }

  /** A memory input of {@code partitions} partitions. */
  static MemoryStream input(String name, int partitions) {
    return MemoryStreams.create(name, partitions);
  }

  static RunningJob start(Map<String, String> config) {
    return Millrace.start(config);
  }

  /**
   * Runs {@code millrace samza export-checkpoint <file>} as the command line does: {exit code,
   * output, errors}.
   */
  static String[] exportCheckpoint(Path file) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = SamzaCommand.run(
        new String[] {"export-checkpoint", file.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new String[] {Integer.toString(exit), out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8)};
  }

  /** Runs a job over sealed inputs to its end; fails if it failed. */
  static void runToEnd(Map<String, String> config) throws InterruptedException {
    try (RunningJob job = Millrace.start(config)) {
      job.join();
    }
  }
}
