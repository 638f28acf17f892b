package io.millrace.bench.jmh;

import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs a JMH benchmark by name and prints its RESULT lines. */
public final class JmhBenchmarks {
  private JmhBenchmarks() {}

  /** The median of the measurement iterations (the machine is noisy: never the best one). */
  private static double median(Result<?> result) {
    return result.getStatistics().getPercentile(50.0);
  }

  /** Runs {@code handoff}, {@code loop-path}, {@code checkpoint} or {@code store-range}. */
  public static void run(String name, String[] args) throws Exception {
    Class<?> type = switch (name) {
      case "handoff" -> HandoffBenchmark.class;
      case "loop-path" -> LoopPathBenchmark.class;
      case "checkpoint" -> CheckpointBenchmark.class;
      case "store-range" -> StoreRangeBenchmark.class;
      default -> throw new IllegalArgumentException(name);
    };
    ChainedOptionsBuilder options = new OptionsBuilder()
        .include(type.getName() + ".*")
        .forks(1).warmupIterations(3).measurementIterations(5)
        .warmupTime(TimeValue.seconds(1)).measurementTime(TimeValue.seconds(2))
        .jvmArgsAppend("-Xmx2g")
        .addProfiler(GCProfiler.class);
    String gcName = "G1";
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("-gc")) {
        gcName = args[i + 1];
        options.jvmArgsAppend("-XX:+Use" + gcName + "GC");
        continue;
      }
      int value = Integer.parseInt(args[i + 1]);
      switch (args[i]) {
        case "-f" -> options.forks(value);
        case "-wi" -> options.warmupIterations(value);
        case "-i" -> options.measurementIterations(value);
        case "-r" -> options.measurementTime(TimeValue.seconds(value));
        case "-w" -> options.warmupTime(TimeValue.seconds(value));
        default -> throw new IllegalArgumentException("unknown JMH option " + args[i]);
      }
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    for (RunResult result : results) {
      String params = result.getParams().getParamsKeys().stream()
          .map(k -> k + "=" + result.getParams().getParam(k))
          .reduce("", (a, b) -> a + " " + b);
      Result<?> primary = result.getPrimaryResult();
      Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
      String allocText = alloc == null ? "" : String.format(Locale.ROOT, " alloc_bytes_per_op=%.3f",
          alloc.getScore());
      switch (name) {
        case "handoff" -> {
          boolean runs = result.getSecondaryResults().containsKey("offerRun");
          Result<?> offer = result.getSecondaryResults().get(runs ? "offerRun" : "offer");
          System.out.printf(Locale.ROOT,
              "RESULT handoff offer=%s msgs_per_sec=%.0f error=%.0f%s gc=%s%n",
              runs ? "runs-of-64" : "one-by-one", median(offer), offer.getScoreError(), params,
              gcName);
        }
        case "loop-path" -> System.out.printf(Locale.ROOT,
            "RESULT loop-path msgs_per_sec=%.0f error=%.0f%s%s%n",
            median(primary), primary.getScoreError(), allocText.replace("op=", "msg="),
            params);
        case "store-range" -> System.out.printf(Locale.ROOT,
            "RESULT store-range ranges_per_sec=%.0f error=%.0f%s%s%n",
            median(primary), primary.getScoreError(), allocText.replace("op=", "range="),
            params);
        default -> System.out.printf(Locale.ROOT,
            "RESULT checkpoint checkpoints_per_sec=%.1f error=%.1f%s%s%n",
            median(primary), primary.getScoreError(),
            allocText.replace("op=", "checkpoint="), params);
      }
    }
  }
}
