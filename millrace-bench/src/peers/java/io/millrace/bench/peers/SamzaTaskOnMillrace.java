package io.millrace.bench.peers;

import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One run on Millrace of the peers' Samza tasks ({@link CountingTask}, {@link StoreCountTask}),
 * either as a Samza job through millrace-samza ({@code --api samza}: Samza's keys, translated as
 * {@code bin/millrace run} translates a Samza properties file) or as their twins on Millrace's own
 * API ({@code --api millrace}). Both read the same preloaded memory stream (Millrace's generator,
 * which {@link InputPartition} copies for Samza), 8 partitions, one container thread, with the
 * same store settings (Millrace's defaults), so the two differ only by the adapter.
 *
 * <p>Usage: {@code SamzaTaskOnMillrace --api samza|millrace --task stateless|stateful
 * [--messages N] [--keys K] [--partitions P]}. The timed interval is
 * {@link BenchJobs#timeToEndCollected}'s: from the container's start to its end of stream, the
 * final commit included, after the input was loaded and collected (as Samza's is).
 */
public final class SamzaTaskOnMillrace {
  static final String MEMORY_FACTORY = "org.apache.samza.system.inmemory.InMemorySystemFactory";
  static final String ROCKSDB_FACTORY = "org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory";
  private static final String STREAM = "input";

  private SamzaTaskOnMillrace() {
  }

  public static void main(String[] args) throws Throwable {
    BenchArgs options = new BenchArgs(args, Set.of("api", "task", "messages", "keys", "partitions"));
    String api = options.string("api", "samza");
    String task = options.string("task", "stateless");
    long messages = options.positiveLong("messages", 10_000_000L);
    long keys = options.positiveLong("keys", task.equals("stateful") ? messages : InputPartition.KEY_CARDINALITY);
    int partitions = Math.toIntExact(options.positiveLong("partitions", 8));
    if (!Set.of("samza", "millrace").contains(api) || !Set.of("stateless", "stateful").contains(task)) {
      throw new IllegalArgumentException("--api takes samza or millrace, --task stateless or stateful; got --api "
          + api + " --task " + task);
    }
    Path state = Files.createTempDirectory("millrace-samza-task-bench");
    try {
      Map<String, String> config = api.equals("samza")
          ? samzaJob(task, state)
          : millraceJob(task, state);
      String id = api.equals("samza") ? STREAM : "events";
      config.put("streams." + id + ".generator.messages", Long.toString(messages));
      config.put("streams." + id + ".generator.partitions", Integer.toString(partitions));
      config.put("streams." + id + ".generator.payload.bytes", Integer.toString(InputPartition.VALUE_BYTES));
      config.put("streams." + id + ".generator.keys", Long.toString(keys));
      long[] run = BenchJobs.timeToEndCollected(config); // the input loaded and collected first

      BenchJobs.expect(messages, run[1]);
      double seconds = run[0] / 1e9;
      System.out.printf(Locale.ROOT,
          "RESULT samza-task-on-millrace api=%s task=%s msgs_per_sec=%.1f messages=%d keys=%d partitions=%d"
              + " seconds=%.3f%n", api, task, messages / seconds, messages, keys, partitions, seconds);
    } finally {
      TempDirs.deleteRecursively(state);
    }
  }

  /** The Samza job's properties, as its file would give them (plus Millrace's generator keys). */
  static Map<String, String> samzaJob(String task, Path state) {
    Map<String, String> c = new HashMap<>();
    c.put("job.name", "bench-samza-task");
    c.put("task.inputs", "bench." + STREAM);
    c.put("systems.bench.samza.factory", MEMORY_FACTORY);
    c.put("systems.bench.samza.offset.default", "oldest");
    c.put("job.state.dir", state.toString());
    if (task.equals("stateless")) {
      c.put("task.class", CountingTask.class.getName());
    } else {
      c.put("task.class", StoreCountTask.class.getName());
      c.put("stores.counts.factory", ROCKSDB_FACTORY);
      c.put("stores.counts.key.serde", "string");
      c.put("stores.counts.msg.serde", "long");
      c.put("serializers.registry.string.class", "org.apache.samza.serializers.StringSerdeFactory");
      c.put("serializers.registry.long.class", "org.apache.samza.serializers.LongSerdeFactory");
    }
    return c;
  }

  /** The same job on Millrace's own API and keys. */
  static Map<String, String> millraceJob(String task, Path state) {
    Map<String, String> c = new HashMap<>();
    c.put("job.name", "bench-samza-task");
    c.put("task.inputs", "events");
    c.put("systems.bench.factory", "memory");
    c.put("streams.events.system", "bench");
    c.put("streams.events.physical.name", STREAM);
    c.put("job.state.dir", state.toString());
    if (task.equals("stateless")) {
      c.put("task.class", MillraceCountingTask.class.getName());
    } else {
      c.put("task.class", MillraceStoreCountTask.class.getName());
      c.put("stores.counts.factory", "rocksdb");
      c.put("stores.counts.key.serde", "string");
      c.put("stores.counts.value.serde", "long");
    }
    return c;
  }
}
