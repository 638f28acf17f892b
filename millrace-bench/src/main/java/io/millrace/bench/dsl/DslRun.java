package io.millrace.bench.dsl;

import io.millrace.api.Headers;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.TempDirs;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One timed run of one of {@code bench dsl}'s jobs, as the DSL job or as its hand-written task
 * ({@code --impl dsl|task}), in this JVM: {@code BenchMain dsl-run --job stateless --impl dsl}.
 * Prints {@code RESULT dsl-run job=... impl=... msgs_per_sec=... warm_msgs_per_sec=...
 * outputs=...}: the whole run's rate, and the rate after its first {@code --warmup} messages (a
 * fifth by default). {@code --set k=v,...} adds settings to the job's (for an A/B of one).
 *
 * <p>The input is a memory stream filled before the clock starts, as the container benchmark's
 * generator fills it: message {@code i} in partition {@code i % P}, key {@code key-(i % 1000)},
 * one of 1,024 shared 100-byte payloads of random letters, and event time {@code i / 10} ms (ten
 * messages a millisecond, in order in each partition: 10M messages are 1,000 s of event time,
 * a hundred 10-second windows).
 */
public final class DslRun {
  // Named as the job calls the stream, so the consumer hands its envelopes over without a copy.
  static final String INPUT = "events";

  private DslRun() {}

  /** Runs once; see the class comment. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0).only("job", "impl", "messages", "partitions", "set",
        "warmup");
    String job = args.get("job", "stateless");
    String impl = args.get("impl", "dsl");
    long messages = args.getLong("messages", 10_000_000);
    int partitions = (int) args.getLong("partitions", 8);
    long warmup = args.getLong("warmup", messages / 5);
    if (warmup < 0 || warmup >= messages) {
      throw new IllegalArgumentException("--warmup: messages before the warm clock starts, "
          + "from 0 to below --messages (" + messages + "), not " + warmup);
    }
    Path state = Files.createTempDirectory("millrace-bench-dsl");
    try {
      Map<String, String> config = config(job, impl, state);
      config.putAll(args.getSettings("set"));
      fill(messages, partitions);
      System.gc();
      long[] run = job.equals("repartition-count")
          ? timeToOutputs(config, closedWindowKeys(messages, partitions))
          : timeToEnd(config, warmup);
      if (!job.equals("repartition-count")) {
        BenchJobs.expect(messages, run[1]);
      }
      MemoryStream out = MemoryStreams.get("bench-dsl-out");
      long outputs = 0;
      for (int p = 0; out != null && p < out.partitionCount(); p++) {
        outputs += out.size(p);
      }
      // (repartition-count: no warm figure, its run is timed to its outputs)
      double warm = run.length > 2 ? (messages - run[2]) / (run[3] / 1e9) : Double.NaN;
      System.out.printf(Locale.ROOT, "RESULT dsl-run job=%s impl=%s msgs_per_sec=%.0f "
          + "warm_msgs_per_sec=%.0f warmup=%d outputs=%d messages=%d partitions=%d%n", job, impl,
          messages / (run[0] / 1e9), warm, run.length > 2 ? run[2] : 0, outputs, messages,
          partitions);
    } finally {
      TempDirs.deleteRecursively(state);
    }
  }

  /**
   * Times a job from its containers' start to its end ({@code [0]}, with the messages it
   * processed, {@code [1]}), and from the moment it had processed {@code warmup} messages
   * ({@code [2]}, the count seen then) to its end ({@code [3]}): the rate once the JIT has
   * compiled the job's path. In a run of 10M messages a cold JVM ran a DSL windowed count at
   * about 1M msg/s for its first 0.6-0.9 s of 3 s, the task at 4-5M by 0.5 s (its pipeline is
   * inlined into the loop's delivery, and recompiled as rare branches are first taken).
   */
  static long[] timeToEnd(Map<String, String> config, long warmup) throws Throwable {
    LocalRunner runner = LocalRunner.start(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    long start = runner.startNanos();
    long[] mark = {start, 0};
    Thread watcher = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        long n = runner.processed();
        if (n >= warmup) {
          mark[0] = System.nanoTime();
          mark[1] = n;
          return;
        }
        LockSupport.parkNanos(1_000_000); // 1 ms: a mark a few thousand messages late at most
      }
    }, "bench-warmup-watcher");
    watcher.setDaemon(true);
    watcher.start();
    runner.await();
    long end = System.nanoTime();
    watcher.interrupt();
    watcher.join();
    if (runner.failure() != null) {
      throw runner.failure();
    }
    return new long[] {end - start, runner.processed(), mark[1], end - mark[0]};
  }

  static Map<String, String> config(String job, String impl, Path state) {
    Map<String, String> c = new HashMap<>();
    c.put("job.name", "bench-dsl-" + job);
    c.put("job.state.dir", state.toString());
    c.put("streams.events.system", "memory");
    c.put("streams.events.physical.name", INPUT);
    c.put("streams.out.system", "memory");
    c.put("streams.out.physical.name", "bench-dsl-out");
    boolean dsl = impl.equals("dsl");
    if (!impl.equals("dsl") && !impl.equals("task")) {
      throw new IllegalArgumentException("--impl: dsl or task, not " + impl);
    }
    switch (job) {
      case "stateless" -> {
        if (dsl) {
          c.put("app.class", BenchApps.Stateless.class.getName());
        } else {
          c.put("task.class", StatelessTask.class.getName());
        }
      }
      case "windowed-count" -> {
        if (dsl) {
          c.put("app.class", BenchApps.WindowedCount.class.getName());
        } else {
          c.put("task.class", WindowedCountTask.class.getName());
          // What the DSL's translator writes for its store on the embedded default.
          c.put("stores.counts.factory", "rocksdb");
          c.put("stores.counts.key.serde", "bytes");
          c.put("stores.counts.value.serde", "bytes");
        }
      }
      case "sliding-count" -> {
        if (!dsl) {
          throw new IllegalArgumentException("--job sliding-count: the DSL job only (--impl dsl)");
        }
        c.put("app.class", BenchApps.SlidingCount.class.getName());
      }
      case "repartition-count" -> {
        if (!dsl) {
          throw new IllegalArgumentException("--job repartition-count: the DSL job only (--impl "
              + "dsl), for profiles");
        }
        c.put("app.class", BenchApps.RepartitionCount.class.getName());
        // Markers carry the watermark across the repartition on each tick: a tick of 1 s would
        // add up to a second to a run of a few.
        c.put("dsl.watermark.tick.ms", "10");
      }
      default -> throw new IllegalArgumentException("--job: stateless, windowed-count, "
          + "sliding-count or repartition-count, not " + job);
    }
    if (!dsl) {
      c.put("task.inputs", "events");
      c.put("task.outputs", "out");
    }
    return c;
  }

  /**
   * Times a job that does not end (its repartition is read until stopped) from its containers'
   * start until it has written {@code outputs} records, then stops it.
   */
  static long[] timeToOutputs(Map<String, String> config, long outputs) throws Throwable {
    LocalRunner runner = LocalRunner.start(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    long start = runner.startNanos();
    long elapsed;
    while (true) {
      MemoryStream out = MemoryStreams.get("bench-dsl-out");
      long written = 0;
      for (int p = 0; out != null && p < out.partitionCount(); p++) {
        written += out.size(p);
      }
      if (written >= outputs) {
        elapsed = System.nanoTime() - start;
        break;
      }
      if (runner.isDone()) {
        throw new IllegalStateException("the job stopped after " + written + " of " + outputs
            + " outputs", runner.failure());
      }
      Thread.sleep(1);
    }
    runner.requestStop();
    runner.await();
    return new long[] {elapsed, runner.processed()};
  }

  /**
   * The results a re-keyed windowed count of the input gives by the time every task has read
   * all of its partition: one per new key of each window the lowest partition's last timestamp
   * closes (the last window stays open: a repartition never ends).
   */
  static long closedWindowKeys(long messages, int partitions) {
    long watermark = Long.MAX_VALUE;
    for (int p = 0; p < partitions && p < messages; p++) {
      long last = messages - 1 - Math.floorMod(messages - 1 - p, partitions);
      watermark = Math.min(watermark, last / 10);
    }
    byte[][] payloads = payloads();
    java.util.Set<Long> pairs = new java.util.HashSet<>();
    for (long i = 0; i < messages; i++) {
      long window = (i / 10) / BenchApps.WINDOW_MS;
      if ((window + 1) * BenchApps.WINDOW_MS <= watermark) {
        pairs.add(window * 100_000 + BenchApps.newKey(payloads[(int) (i & 1023)]).hashCode());
      }
    }
    return pairs.size();
  }

  private static byte[][] payloads() {
    SplittableRandom random = new SplittableRandom(42);
    byte[][] payloads = new byte[1024][100];
    for (byte[] payload : payloads) {
      for (int i = 0; i < payload.length; i++) {
        payload[i] = (byte) ('a' + random.nextInt(26));
      }
    }
    return payloads;
  }

  /** Fills the input (untimed), as described in the class comment; the output starts empty. */
  static void fill(long messages, int partitions) {
    MemoryStreams.drop(INPUT);
    MemoryStreams.drop("bench-dsl-out");
    MemoryStream stream = MemoryStreams.create(INPUT, partitions);
    byte[][] payloads = payloads();
    String[] keys = new String[1000];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = "key-" + i;
    }
    for (long i = 0; i < messages; i++) {
      stream.append((int) (i % partitions), keys[(int) (i % keys.length)],
          payloads[(int) (i & 1023)], i / 10, Headers.EMPTY);
    }
    stream.seal();
  }
}
