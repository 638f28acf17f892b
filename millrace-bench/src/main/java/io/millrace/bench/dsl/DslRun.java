package io.millrace.bench.dsl;

import io.millrace.api.Headers;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One timed run of one of {@code bench dsl}'s jobs, as the DSL job or as its hand-written task
 * ({@code --impl dsl|task}), in this JVM: {@code BenchMain dsl-run --job stateless --impl dsl}.
 * Prints {@code RESULT dsl-run job=... impl=... msgs_per_sec=... outputs=...}.
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
    Args args = new Args(argv, 0).only("job", "impl", "messages", "partitions");
    String job = args.get("job", "stateless");
    String impl = args.get("impl", "dsl");
    long messages = args.getLong("messages", 10_000_000);
    int partitions = (int) args.getLong("partitions", 8);
    Path state = Files.createTempDirectory("millrace-bench-dsl");
    try {
      Map<String, String> config = config(job, impl, state);
      fill(messages, partitions);
      System.gc();
      long[] run = BenchJobs.timeToEnd(config);
      BenchJobs.expect(messages, run[1]);
      MemoryStream out = MemoryStreams.get("bench-dsl-out");
      long outputs = 0;
      for (int p = 0; out != null && p < out.partitionCount(); p++) {
        outputs += out.size(p);
      }
      System.out.printf(Locale.ROOT, "RESULT dsl-run job=%s impl=%s msgs_per_sec=%.0f "
          + "outputs=%d messages=%d partitions=%d%n", job, impl, messages / (run[0] / 1e9),
          outputs, messages, partitions);
    } finally {
      TempDirs.deleteRecursively(state);
    }
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
      default -> throw new IllegalArgumentException("--job: stateless or windowed-count, not "
          + job);
    }
    if (!dsl) {
      c.put("task.inputs", "events");
      c.put("task.outputs", "out");
    }
    return c;
  }

  /** Fills the input (untimed), as described in the class comment; the output starts empty. */
  static void fill(long messages, int partitions) {
    MemoryStreams.drop(INPUT);
    MemoryStreams.drop("bench-dsl-out");
    MemoryStream stream = MemoryStreams.create(INPUT, partitions);
    SplittableRandom random = new SplittableRandom(42);
    byte[][] payloads = new byte[1024][100];
    for (byte[] payload : payloads) {
      for (int i = 0; i < payload.length; i++) {
        payload[i] = (byte) ('a' + random.nextInt(26));
      }
    }
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
