package io.millrace.bench.store;

import io.millrace.bench.support.Args;
import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.Stats;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Counting per key in a store, from the memory system (preloaded), one container: N messages of
 * ~100 bytes over P partitions, keys from a cardinality of K ({@code --keys} equal to
 * {@code --messages}: every key new, so every read misses the cache and goes to the engine).
 * Prints a line per run and {@code RESULT store-count ... msgs_per_sec=<median>}.
 *
 * <p>The timed interval runs from the container's start to its end of stream, including the final
 * commit (the cache flushed into the engine, the engine's log synced).
 */
public final class StoreCountBench {
  private StoreCountBench() {}

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    long messages = args.getLong("messages", 2_000_000);
    int keys = (int) args.getLong("keys", messages);
    int partitions = (int) args.getLong("partitions", 8);
    int runs = (int) args.getLong("runs", 3);
    String engine = args.get("store", "rocksdb");
    String cacheSize = args.get("cache-size", null);
    String writeBatch = args.get("write-batch-size", null);
    Map<String, String> extra = args.getSettings("set");
    double[] rates = new double[runs];
    for (int run = 0; run < runs; run++) {
      rates[run] = runOnce(messages, keys, partitions, engine, cacheSize, writeBatch, extra);
      System.out.printf(Locale.ROOT, "run %d: %,.0f msg/s%n", run + 1, rates[run]);
    }
    System.out.printf(Locale.ROOT, "RESULT store-count store=%s messages=%d keys=%d partitions=%d "
            + "msgs_per_sec=%.0f min=%.0f max=%.0f runs=%d%n", engine, messages, keys, partitions,
        Stats.median(rates), Stats.min(rates), Stats.max(rates), runs);
  }

  static double runOnce(long messages, int keys, int partitions, String engine, String cacheSize,
      String writeBatch, Map<String, String> extra) throws Throwable {
    Path state = Files.createTempDirectory("millrace-store-bench");
    try {
      Map<String, String> c = new HashMap<>();
      c.put("job.name", "bench-store-count");
      c.put("job.state.dir", state.toString());
      c.put("task.class", CountTask.class.getName());
      c.put("task.inputs", "events");
      c.put("streams.events.system", "memory");
      c.put("streams.events.physical.name", "bench-store-events");
      c.put("streams.events.value.serde", "bytes");
      c.put("streams.events.generator.messages", Long.toString(messages));
      c.put("streams.events.generator.partitions", Integer.toString(partitions));
      c.put("streams.events.generator.payload.bytes", "100");
      c.put("streams.events.generator.keys", Integer.toString(keys));
      c.put("stores.counts.factory", engine);
      c.put("stores.counts.value.serde", "long");
      if (cacheSize != null) {
        c.put("stores.counts.cache.size", cacheSize);
      }
      if (writeBatch != null) {
        c.put("stores.counts.write.batch.size", writeBatch);
      }
      c.putAll(extra); // --set k=v,k2=v2: job keys to try, e.g. stores.counts.rocksdb.<option>
      MemoryStreams.drop("bench-store-events");
      System.gc();
      long[] run = BenchJobs.timeToEnd(c);
      BenchJobs.expect(messages, run[1]);
      MemoryStreams.drop("bench-store-events");
      return messages / (run[0] / 1e9);
    } finally {
      TempDirs.deleteRecursively(state);
    }
  }
}
