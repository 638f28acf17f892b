package io.millrace.bench.dsl;

import io.millrace.bench.support.Args;
import io.millrace.bench.support.ChildRun;
import io.millrace.bench.support.Stats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench dsl --job stateless|windowed-count}: a DSL job against the hand-written task that
 * does the same work (the same input, serdes, store engine and settings, and output), each run
 * in a fresh JVM ({@link DslRun}), alternating which goes first in each round. Prints a line
 * per run and {@code RESULT dsl job=... dsl_msgs_per_sec=... task_msgs_per_sec=... ratio=...},
 * medians of the rounds and the ratio of the medians (issue 32: stateless at least 0.9,
 * windowed count at least 0.8), over whole runs from a cold JVM and over each run after its
 * first {@code --warmup} messages (a fifth by default: {@code warm_ratio}, the rate once the
 * JIT has compiled each job's path). Fails if the two wrote different numbers of output records.
 */
public final class DslBench {
  private DslBench() {}

  /** Runs the rounds; see the class comment. */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, 0).only("job", "messages", "partitions", "runs", "jvm-opts",
        "warmup");
    String job = args.get("job", "stateless");
    String messages = Long.toString(args.getLong("messages", 10_000_000));
    String partitions = Long.toString(args.getLong("partitions", 8));
    String warmup = Long.toString(args.getLong("warmup", Long.parseLong(messages) / 5));
    int runs = (int) args.getLong("runs", 3);
    List<String> jvm = List.of(args.get("jvm-opts", "-Xmx4g").trim().split("\\s+"));
    DslRun.config(job, "dsl", Path.of(".")); // a bad --job fails here, before any run
    double[] dsl = new double[runs];
    double[] task = new double[runs];
    double[] dslWarm = new double[runs];
    double[] taskWarm = new double[runs];
    for (int round = 0; round < runs; round++) {
      for (int i = 0; i < 2; i++) {
        boolean dslTurn = (round + i) % 2 == 0; // alternate which goes first
        String impl = dslTurn ? "dsl" : "task";
        Map<String, String> r = runChild(impl, jvm, List.of("--job", job, "--impl", impl,
            "--messages", messages, "--partitions", partitions, "--warmup", warmup));
        double rate = Double.parseDouble(r.get("msgs_per_sec"));
        double warm = Double.parseDouble(r.get("warm_msgs_per_sec"));
        (dslTurn ? dsl : task)[round] = rate;
        (dslTurn ? dslWarm : taskWarm)[round] = warm;
        outputs(impl, r.get("outputs"));
        System.out.printf(Locale.ROOT, "round %d %s: %,.0f msg/s, %,.0f after the first %s "
            + "(%s outputs)%n", round + 1, impl, rate, warm, warmup, r.get("outputs"));
      }
    }
    double d = Stats.median(dsl);
    double t = Stats.median(task);
    double dw = Stats.median(dslWarm);
    double tw = Stats.median(taskWarm);
    System.out.printf(Locale.ROOT, "RESULT dsl job=%s dsl_msgs_per_sec=%.0f task_msgs_per_sec=%.0f "
            + "ratio=%.3f dsl_min=%.0f dsl_max=%.0f task_min=%.0f task_max=%.0f "
            + "dsl_warm_msgs_per_sec=%.0f task_warm_msgs_per_sec=%.0f warm_ratio=%.3f runs=%d "
            + "messages=%s warmup=%s partitions=%s%n", job, d, t, d / t, Stats.min(dsl),
        Stats.max(dsl), Stats.min(task), Stats.max(task), dw, tw, dw / tw, runs, messages, warmup,
        partitions);
  }

  private static final Map<String, String> OUTPUTS = new HashMap<>();

  /** Both must write as many records: the same work, or the ratio means nothing. */
  private static void outputs(String impl, String count) {
    OUTPUTS.put(impl, count);
    if (OUTPUTS.size() == 2 && !OUTPUTS.get("dsl").equals(OUTPUTS.get("task"))) {
      throw new IllegalStateException("the DSL job wrote " + OUTPUTS.get("dsl")
          + " records and the task " + OUTPUTS.get("task") + ": they do not do the same work");
    }
  }

  /** Runs {@link DslRun} in a fresh JVM, echoing its output, and parses its RESULT line. */
  private static Map<String, String> runChild(String name, List<String> jvm, List<String> args)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        "io.millrace.bench.BenchMain", "dsl-run"));
    command.addAll(args);
    return ChildRun.run(name, command);
  }
}
