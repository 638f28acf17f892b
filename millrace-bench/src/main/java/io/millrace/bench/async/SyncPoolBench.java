package io.millrace.bench.async;

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
 * A CPU-bound synchronous task (a 1 us spin per message) run inline on the loop thread and on a
 * worker pool ({@code job.container.thread.pool.size}), alternating in one JVM. 8 partitions, one
 * container. What the pool costs per message is the hand-off there and the completion back.
 */
public final class SyncPoolBench {
  private SyncPoolBench() {}

  /** Prints a line per run and a RESULT line per variant with the median. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    long messages = args.getLong("messages", 2_000_000);
    int runs = (int) args.getLong("runs", 5);
    int poolSize = (int) args.getLong("pool-size", 2);
    int concurrency = (int) args.getLong("concurrency", 1);
    SpinTask.nanos = args.getLong("spin-ns", 1_000);
    double[] inline = new double[runs];
    double[] pooled = new double[runs];
    for (int run = 0; run < runs; run++) {
      inline[run] = runOnce(messages, 0, concurrency);
      pooled[run] = runOnce(messages, poolSize, concurrency);
      System.out.printf(Locale.ROOT, "run %d: inline %,.0f msg/s, pool of %d %,.0f msg/s%n",
          run + 1, inline[run], poolSize, pooled[run]);
    }
    System.out.printf(Locale.ROOT, "RESULT sync-pool variant=inline msgs_per_sec=%.0f min=%.0f "
            + "max=%.0f spin_ns=%d runs=%d%n", Stats.median(inline), Stats.min(inline),
        Stats.max(inline), SpinTask.nanos, runs);
    System.out.printf(Locale.ROOT, "RESULT sync-pool variant=pool pool_size=%d concurrency=%d "
            + "msgs_per_sec=%.0f min=%.0f max=%.0f spin_ns=%d runs=%d%n", poolSize, concurrency,
        Stats.median(pooled), Stats.min(pooled), Stats.max(pooled), SpinTask.nanos, runs);
  }

  static double runOnce(long messages, int poolSize, int concurrency) throws Throwable {
    Path state = Files.createTempDirectory("millrace-sync-pool");
    try {
      Map<String, String> config = new HashMap<>();
      config.put("job.name", "bench-sync-pool");
      config.put("task.class", SpinTask.class.getName());
      config.put("task.inputs", "events");
      config.put("job.state.dir", state.toString());
      if (poolSize > 0) {
        config.put("job.container.thread.pool.size", Integer.toString(poolSize));
        config.put("task.max.concurrency", Integer.toString(concurrency));
      }
      config.put("streams.events.system", "memory");
      config.put("streams.events.physical.name", "bench-sync-pool");
      config.put("streams.events.value.serde", "bytes");
      config.put("streams.events.generator.messages", Long.toString(messages));
      config.put("streams.events.generator.partitions", "8");
      config.put("streams.events.generator.payload.bytes", "100");
      MemoryStreams.drop("bench-sync-pool");
      SpinTask.PROCESSED.reset();
      long[] run = BenchJobs.timeToEnd(config);
      BenchJobs.expect(messages, SpinTask.PROCESSED.sum());
      MemoryStreams.drop("bench-sync-pool");
      return messages / (run[0] / 1e9);
    } finally {
      TempDirs.deleteRecursively(state);
    }
  }
}
