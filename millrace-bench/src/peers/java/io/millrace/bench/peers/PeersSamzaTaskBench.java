package io.millrace.bench.peers;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The same Samza task classes on Samza 1.8's own runtime and on Millrace through millrace-samza,
 * and their twins on Millrace's own API, in one run (issue 34): per task (stateless:
 * {@link CountingTask}; stateful: {@link StoreCountTask}, a RocksDB store), R rounds of three fresh
 * JVMs whose order turns each round (Millrace native, Millrace with the Samza task, Samza; then
 * starting from the second, ...), then the medians and their ratios.
 *
 * <p>Samza runs as in {@code peers-container} and {@code peers-store-count}
 * ({@link SamzaContainerBench}, {@link SamzaStoreCountBench}: samza-test's TestRunner over its
 * in-memory system, timers off, one run-loop thread); Millrace runs {@link SamzaTaskOnMillrace}
 * over the same input from its memory system. The Millrace children run on Millrace's class path
 * plus, for the Samza task, Samza's API jar alone (as a job's jars would bring it): none of
 * Samza's runtime.
 *
 * <p>Usage: {@code PeersSamzaTaskBench [--tasks stateless,stateful] [--messages 10000000]
 * [--store-messages 2000000] [--runs 3] [--jvm-opts "-Xmx4g"]}; the stateful task counts
 * {@code --store-messages} unique keys (every read goes to RocksDB), as {@code peers-store-count}.
 */
public final class PeersSamzaTaskBench {
  private static final String PARTITIONS = "8";

  private PeersSamzaTaskBench() {
  }

  public static void main(String[] args) throws InterruptedException {
    BenchArgs options = new BenchArgs(args, Set.of("tasks", "messages", "store-messages", "runs", "jvm-opts"));
    List<String> tasks = List.of(options.string("tasks", "stateless,stateful").split(","));
    for (String task : tasks) {
      if (!task.equals("stateless") && !task.equals("stateful")) {
        throw new IllegalArgumentException("--tasks takes stateless and/or stateful, got " + task);
      }
    }
    String messages = Long.toString(options.positiveLong("messages", 10_000_000L));
    String storeMessages = Long.toString(options.positiveLong("store-messages", 2_000_000L));
    int runs = Math.toIntExact(options.positiveLong("runs", 3));
    List<String> jvmOptions = List.of(options.string("jvm-opts", "-Xmx4g").trim().split("\\s+"));
    String classpath = System.getProperty("java.class.path");
    String millraceCp = PeersContainerBench.withoutPeersLib(classpath);
    String samzaApiCp = millraceCp + File.pathSeparator + samzaApi(classpath);

    for (String task : tasks) {
      boolean stateful = task.equals("stateful");
      String n = stateful ? storeMessages : messages;
      List<String> millraceArgs = new ArrayList<>(List.of("--task", task, "--messages", n, "--partitions", PARTITIONS));
      ChildJvm nativeTask = new ChildJvm("millrace-native", jvmOptions, millraceCp,
          SamzaTaskOnMillrace.class.getName(), concat(List.of("--api", "millrace"), millraceArgs),
          "RESULT samza-task-on-millrace ");
      ChildJvm adapted = new ChildJvm("millrace-samza", jvmOptions, samzaApiCp,
          SamzaTaskOnMillrace.class.getName(), concat(List.of("--api", "samza"), millraceArgs),
          "RESULT samza-task-on-millrace ");
      ChildJvm samza = stateful
          ? new ChildJvm("samza", jvmOptions, classpath, SamzaStoreCountBench.class.getName(),
              List.of("--messages", n, "--keys", n, "--partitions", PARTITIONS), "RESULT samza-store-count ")
          : new ChildJvm("samza", jvmOptions, classpath, SamzaContainerBench.class.getName(),
              List.of("--messages", n, "--partitions", PARTITIONS, "--timers", "off"), "RESULT samza-container ");
      double[][] rates = rounds(List.of(nativeTask, adapted, samza), runs, task);
      double nativeRate = PeersContainerBench.median(rates[0]);
      double millrace = PeersContainerBench.median(rates[1]);
      double samzaRate = PeersContainerBench.median(rates[2]);
      System.out.printf(Locale.ROOT,
          "RESULT peers-samza-task task=%s millrace_msgs_per_sec=%.1f samza_msgs_per_sec=%.1f ratio=%.3f"
              + " native_msgs_per_sec=%.1f adapter_over_native=%.3f messages=%s runs=%d%n",
          task, millrace, samzaRate, millrace / samzaRate, nativeRate, millrace / nativeRate, n, runs);
    }
  }

  /**
   * Runs each child once a round, {@code runs} rounds, round {@code r} starting from child
   * {@code r mod children} so that no child always runs first or after the same one; prints each
   * round and returns the rates, one row per child.
   */
  static double[][] rounds(List<ChildJvm> children, int runs, String label) throws InterruptedException {
    double[][] rates = new double[children.size()][runs];
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < children.size(); i++) {
        int c = (r + i) % children.size();
        rates[c][r] = children.get(c).run();
      }
      final int round = r;
      System.out.printf(Locale.ROOT, "round %d/%d task=%s native=%.1f millrace=%.1f samza=%.1f msgs_per_sec%n",
          r + 1, runs, label, rates[0][round], rates[1][round], rates[2][round]);
    }
    return rates;
  }

  /** Samza's API jar from the peers' class path: what a Samza job's own jars bring. */
  private static String samzaApi(String classpath) {
    String jar = Arrays.stream(classpath.split(File.pathSeparator))
        .filter(entry -> new File(entry).getName().startsWith("samza-api-"))
        .collect(Collectors.joining(File.pathSeparator));
    if (jar.isEmpty()) {
      throw new IllegalStateException("no samza-api jar on the class path: build with -Ppeers");
    }
    return jar;
  }

  private static List<String> concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all;
  }
}
