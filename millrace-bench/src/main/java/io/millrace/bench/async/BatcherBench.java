package io.millrace.bench.async;

import io.millrace.api.config.JobConfig;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.Stats;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Micro-batched remote calls: a remote service whose call costs 5 ms + 10 us per item, with a few
 * connections (4 by default), called once per message or through a {@link
 * io.millrace.batching.Batcher}, with and without a bound on the batches each task has out
 * ({@code maxInFlight}). An async task per partition (8), concurrency 1,000 per task, so batches
 * can fill. Each variant runs for a fixed time; the figure is completed messages/s after the
 * first second (start-up left out).
 */
public final class BatcherBench {
  private BatcherBench() {}

  /** Prints a line per run and a RESULT line per variant. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    int runs = (int) args.getLong("runs", 3);
    double seconds = Double.parseDouble(args.get("seconds", "10"));
    int connections = (int) args.getLong("connections", 4);
    int maxSize = (int) args.getLong("max-size", 100);
    int concurrency = (int) args.getLong("concurrency", 1000);
    int maxInFlight = (int) args.getLong("max-in-flight", 1);
    BatchedCallTask.linger = Duration.ofMillis(args.getLong("linger-ms", 2));
    long fixed = args.getLong("fixed-us", 5_000);
    long perItem = args.getLong("per-item-us", 10);
    double[] single = new double[runs];
    double[] batched = new double[runs];
    double[] sizes = new double[runs];
    double[] limited = new double[runs];
    double[] limitedSizes = new double[runs];
    for (int run = 0; run < runs; run++) {
      single[run] = runOnce(new SlottedService(connections, fixed, perItem), 0, 0, concurrency,
          seconds)[0];
      double[] b = runOnce(new SlottedService(connections, fixed, perItem), maxSize, 0,
          concurrency, seconds);
      batched[run] = b[0];
      sizes[run] = b[1];
      double[] l = runOnce(new SlottedService(connections, fixed, perItem), maxSize, maxInFlight,
          concurrency, seconds);
      limited[run] = l[0];
      limitedSizes[run] = l[1];
      System.out.printf(Locale.ROOT, "run %d: one call per message %,.0f msg/s; batched %,.0f "
              + "msg/s (mean batch %.1f); batched, %d out per task %,.0f msg/s (mean batch %.1f)%n",
          run + 1, single[run], batched[run], sizes[run], maxInFlight, limited[run],
          limitedSizes[run]);
    }
    double bound = connections * 1e6 / (fixed + perItem);
    double batchBound = connections * 1e6 * maxSize / (fixed + perItem * maxSize);
    System.out.printf(Locale.ROOT, "RESULT batcher variant=unbatched msgs_per_sec=%.0f "
        + "bound=%.0f connections=%d runs=%d%n", Stats.median(single), bound, connections, runs);
    System.out.printf(Locale.ROOT, "RESULT batcher variant=batched max_size=%d msgs_per_sec=%.0f "
            + "bound=%.0f mean_batch=%.1f speedup=%.1f connections=%d runs=%d%n", maxSize,
        Stats.median(batched), batchBound, Stats.median(sizes),
        Stats.median(batched) / Stats.median(single), connections, runs);
    System.out.printf(Locale.ROOT, "RESULT batcher variant=batched-max-in-flight max_size=%d "
            + "max_in_flight=%d msgs_per_sec=%.0f bound=%.0f mean_batch=%.1f speedup=%.1f "
            + "connections=%d runs=%d%n", maxSize, maxInFlight, Stats.median(limited), batchBound,
        Stats.median(limitedSizes), Stats.median(limited) / Stats.median(single), connections,
        runs);
  }

  /** One timed run: returns messages/s and the mean batch size. */
  static double[] runOnce(SlottedService service, int maxSize, int maxInFlight, int concurrency,
      double seconds) throws Throwable {
    Path state = Files.createTempDirectory("millrace-batcher");
    try {
      Map<String, String> config = new HashMap<>();
      config.put("job.name", "bench-batcher");
      config.put("task.class", BatchedCallTask.class.getName());
      config.put("task.inputs", "requests");
      config.put("task.max.concurrency", Integer.toString(concurrency));
      config.put("task.ordering", "none");
      config.put("job.state.dir", state.toString());
      config.put("streams.requests.system", "memory");
      config.put("streams.requests.physical.name", "bench-batcher");
      config.put("streams.requests.generator.messages", "20000000");
      config.put("streams.requests.generator.partitions", "8");
      config.put("streams.requests.generator.payload.bytes", "16");
      config.put("streams.requests.generator.mode", "live");
      MemoryStreams.drop("bench-batcher");
      BatchedCallTask.service = service;
      BatchedCallTask.batchSize = maxSize;
      BatchedCallTask.maxInFlight = maxInFlight;
      BatchedCallTask.COMPLETED.reset();
      BatchedCallTask.CALLS.reset();
      LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
      runner.start();
      Thread.sleep(1000);
      long fromCount = BatchedCallTask.COMPLETED.sum();
      long fromCalls = BatchedCallTask.CALLS.sum();
      long from = System.nanoTime();
      Thread.sleep((long) (seconds * 1000) - 1000);
      long toCount = BatchedCallTask.COMPLETED.sum();
      long toCalls = BatchedCallTask.CALLS.sum();
      long to = System.nanoTime();
      runner.requestStop();
      if (!runner.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the job did not stop within 30 s");
      }
      if (runner.failure() != null) {
        throw runner.failure();
      }
      MemoryStreams.drop("bench-batcher");
      double rate = (toCount - fromCount) / ((to - from) / 1e9);
      return new double[] {rate, (toCount - fromCount) / (double) Math.max(1, toCalls - fromCalls)};
    } finally {
      TempDirs.deleteRecursively(state);
    }
  }
}
