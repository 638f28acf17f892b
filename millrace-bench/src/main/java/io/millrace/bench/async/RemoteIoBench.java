package io.millrace.bench.async;

import io.millrace.api.config.JobConfig;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.Stats;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Remote I/O: 10 partitions, an async task per partition whose calls take 1-200 ms (uniform),
 * completed by a timer; concurrency per task 1, 3, 10, 100, 1,000; one loop thread. Little's law
 * bounds the throughput at partitions x concurrency / mean latency; the benchmark reports the
 * throughput as a fraction of that bound, measured in the steady state (completions between 10%
 * and 90% of the run, so the start and the drain at the end are left out) and over the whole run,
 * and the loop thread's CPU per message.
 *
 * <p>The latencies are random, so a run's mean latency differs from the nominal 100.5 ms by about
 * 57 ms / sqrt(calls per slot): a few percent at low concurrency. The benchmark therefore also
 * reports the throughput against the bound of the latencies the run actually drew
 * ({@code realized}), which isolates what the runtime loses from what the dice gave.
 */
public final class RemoteIoBench {
  private static final double MEAN_SECONDS = (RemoteCallTask.MIN_MS + RemoteCallTask.MAX_MS) / 2e3;

  private RemoteIoBench() {}

  /** Runs every level, prints a line per run and a RESULT line per level. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    String[] levels = args.get("concurrency", "1,3,10,100,1000").split(",");
    int partitions = (int) args.getLong("partitions", 10);
    double seconds = Double.parseDouble(args.get("seconds", "10"));
    int runs = (int) args.getLong("runs", 3);
    String ordering = args.get("ordering", "partition");
    int keys = (int) args.getLong("keys", 10_000);
    for (String level : levels) {
      int concurrency = Integer.parseInt(level.trim());
      double bound = partitions * concurrency / MEAN_SECONDS;
      double[] steady = new double[runs];
      double[] whole = new double[runs];
      double[] cpu = new double[runs];
      double[] realized = new double[runs];
      for (int run = 0; run < runs; run++) {
        double[] r = runOnce(partitions, concurrency, ordering, keys, (long) (bound * seconds));
        steady[run] = r[0] / bound;
        whole[run] = r[1] / bound;
        cpu[run] = r[2];
        double realizedBound = partitions * concurrency / (r[3] / 1e6);
        realized[run] = r[0] / realizedBound;
        System.out.printf(Locale.ROOT, "concurrency %d run %d: steady %.0f msg/s (%.1f%% of %.0f;"
                + " %.1f%% of %.0f for the drawn mean latency %.2f ms), whole run %.1f%%,"
                + " loop CPU %.2f us/msg%n", concurrency, run + 1, r[0], steady[run] * 100, bound,
            realized[run] * 100, realizedBound, r[3] / 1e3, whole[run] * 100, cpu[run]);
      }
      System.out.printf(Locale.ROOT, "RESULT remote-io ordering=%s concurrency=%d partitions=%d "
              + "bound_msgs_per_sec=%.0f steady_fraction_of_bound=%.4f "
              + "steady_fraction_of_realized_bound=%.4f whole_run_fraction=%.4f "
              + "loop_cpu_us_per_msg=%.3f runs=%d%n", ordering, concurrency, partitions, bound,
          Stats.median(steady), Stats.median(realized), Stats.median(whole), Stats.median(cpu),
          runs);
    }
  }

  /**
   * One run: returns steady msg/s, whole-run msg/s, loop CPU microseconds per message and the mean
   * latency drawn, in microseconds.
   */
  static double[] runOnce(int partitions, int concurrency, String ordering, int keys,
      long messages) throws Throwable {
    Path state = Files.createTempDirectory("millrace-remote-io");
    Map<String, String> config = new HashMap<>();
    config.put("job.name", "bench-remote-io");
    config.put("task.class", RemoteCallTask.class.getName());
    config.put("task.inputs", "calls");
    config.put("task.max.concurrency", Integer.toString(concurrency));
    config.put("task.ordering", ordering);
    config.put("job.state.dir", state.toString());
    config.put("streams.calls.system", "memory");
    config.put("streams.calls.physical.name", "bench-remote-calls");
    config.put("streams.calls.generator.messages", Long.toString(messages));
    config.put("streams.calls.generator.partitions", Integer.toString(partitions));
    config.put("streams.calls.generator.payload.bytes", "16");
    config.put("streams.calls.generator.keys", Integer.toString(keys));
    MemoryStreams.drop("bench-remote-calls");
    RemoteCallTask.CPU_AT_START.set(-1);
    RemoteCallTask.CPU_AT_END.set(0);
    RemoteCallTask.COMPLETED.set(0);
    RemoteCallTask.LATENCY_MICROS.reset();
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    LocalRunner runner = new LocalRunner(plan, Clock.SYSTEM);
    long start = System.nanoTime();
    runner.start();
    // Sample completions to find the steady window: from 10% to 90% of the messages.
    long lowCount = messages / 10;
    long highCount = messages - messages / 10;
    long lowAt = 0;
    long highAt = 0;
    while (!runner.await(200, TimeUnit.MICROSECONDS)) {
      long done = RemoteCallTask.COMPLETED.get();
      long now = System.nanoTime();
      if (lowAt == 0 && done >= lowCount) {
        lowAt = now;
      }
      if (highAt == 0 && done >= highCount) {
        highAt = now;
      }
    }
    long elapsed = System.nanoTime() - start;
    if (runner.failure() != null) {
      throw runner.failure();
    }
    if (RemoteCallTask.COMPLETED.get() != messages) {
      throw new IllegalStateException("completed " + RemoteCallTask.COMPLETED.get() + " of "
          + messages);
    }
    MemoryStreams.drop("bench-remote-calls");
    TempDirs.deleteRecursively(state);
    double steady = (highCount - lowCount) / ((highAt - lowAt) / 1e9);
    return new double[] {steady, messages / (elapsed / 1e9),
        (RemoteCallTask.CPU_AT_END.get() - RemoteCallTask.CPU_AT_START.get()) / 1e3 / messages,
        RemoteCallTask.LATENCY_MICROS.sum() / (double) messages};
  }
}
