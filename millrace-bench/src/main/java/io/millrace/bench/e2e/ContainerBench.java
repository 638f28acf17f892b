package io.millrace.bench.e2e;

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
 * The container benchmark, in the spirit of Samza's TestSamzaContainerPerformance: a task that
 * only counts, P partitions, N messages with 100-byte values, one container thread.
 *
 * <ul>
 *   <li>{@code --mode preloaded}: the messages sit in a memory stream before the clock starts;
 *   <li>{@code --mode live}: a feed thread creates them while the loop consumes, handing them over
 *       in micro-batches (the cross-thread path a network consumer takes).
 * </ul>
 *
 * <p>The timed interval is from starting the container to its end of stream (every message
 * processed and the final commit written). The run checks that exactly N messages were processed.
 */
public final class ContainerBench {
  private ContainerBench() {}

  /** Runs the benchmark; prints one line per run and a RESULT line with the median. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    String mode = args.get("mode", "preloaded");
    long messages = args.getLong("messages", 10_000_000);
    int partitions = (int) args.getLong("partitions", 8);
    int runs = (int) args.getLong("runs", 5);
    String batch = args.get("batch-size", "auto"); // task.consumer.batch.size
    int payload = (int) args.getLong("payload", 100);
    // metrics.http.port on, /metrics and /status scraped this often while the job runs; 0: the
    // server off (every run is timed from the containers' start).
    long scrapeMs = args.getLong("http-scrape-ms", 0);
    // The server on this port with no scraper of the benchmark's own (one outside scrapes it).
    int httpPort = (int) args.getLong("http-port", -1);
    double[] rates = new double[runs];
    for (int run = 0; run < runs; run++) {
      rates[run] = runOnce(mode, messages, partitions, batch, payload, scrapeMs, httpPort);
      System.out.printf(Locale.ROOT, "run %d: %,.0f msg/s%n", run + 1, rates[run]);
    }
    System.out.printf(Locale.ROOT,
        "RESULT container mode=%s msgs_per_sec=%.0f min=%.0f max=%.0f runs=%d messages=%d "
            + "partitions=%d batch_size=%s http_scrape_ms=%d%n",
        mode, Stats.median(rates), Stats.min(rates), Stats.max(rates), runs, messages, partitions,
        batch, scrapeMs);
  }

  static double runOnce(String mode, long messages, int partitions, String batch, int payload,
      long scrapeMs, int httpPort) throws Throwable {
    Path state = Files.createTempDirectory("millrace-bench");
    try {
      Map<String, String> config = new HashMap<>();
      config.put("job.name", "bench-container");
      config.put("task.class", CountingTask.class.getName());
      config.put("task.inputs", "events");
      config.put("task.consumer.batch.size", batch);
      config.put("job.state.dir", state.toString());
      config.put("systems.mem.factory", "memory");
      config.put("streams.events.system", "mem");
      config.put("streams.events.physical.name", "bench-events");
      config.put("streams.events.value.serde", "bytes");
      config.put("streams.events.generator.messages", Long.toString(messages));
      config.put("streams.events.generator.partitions", Integer.toString(partitions));
      config.put("streams.events.generator.payload.bytes", Integer.toString(payload));
      config.put("streams.events.generator.keys", "1000");
      config.put("streams.events.generator.mode", mode);
      if (scrapeMs > 0 || httpPort >= 0) {
        config.put("metrics.http.port", Integer.toString(Math.max(0, httpPort)));
        config.put("metrics.http.host", "127.0.0.1");
      }
      MemoryStreams.drop("bench-events");
      System.gc();
      // Planning fills the preloaded stream, untimed.
      long[] run = BenchJobs.timeToEnd(config, scrapeMs);
      BenchJobs.expect(messages, run[1]);
      MemoryStreams.drop("bench-events");
      return messages / (run[0] / 1e9);
    } finally {
      TempDirs.deleteRecursively(state);
    }
  }
}
