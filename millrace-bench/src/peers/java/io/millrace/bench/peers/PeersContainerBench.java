package io.millrace.bench.peers;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The container benchmark on Millrace and on Samza in the same run: R rounds, each a fresh JVM for
 * Millrace's {@code BenchMain container --mode preloaded} then a fresh JVM for
 * {@link SamzaContainerBench} (timers off), and finally the medians and their ratio.
 *
 * <p>Usage: {@code PeersContainerBench [--messages N] [--runs R] [--jvm-opts "-Xmx8g ..."]
 * [--millrace-cp CP] [--samza-cp CP]}. Both children get the same JVM options. By default the Samza
 * child uses this JVM's classpath and the Millrace child the same minus the jars in a
 * {@code peers-lib} directory, so Samza's dependencies stay off Millrace's classpath.
 */
public final class PeersContainerBench {
  private static final String PARTITIONS = "8";
  private static final String PEERS_LIB = "peers-lib";

  private PeersContainerBench() {
  }

  public static void main(String[] args) throws InterruptedException {
    BenchArgs options = new BenchArgs(args, Set.of("messages", "runs", "jvm-opts", "millrace-cp", "samza-cp"));
    String messages = Long.toString(options.positiveLong("messages", 10_000_000L));
    int runs = Math.toIntExact(options.positiveLong("runs", 5));
    List<String> jvmOptions = List.of(options.string("jvm-opts", "-Xmx8g").trim().split("\\s+"));
    String classpath = System.getProperty("java.class.path");

    ChildJvm millrace = new ChildJvm("millrace", jvmOptions,
        options.string("millrace-cp", withoutPeersLib(classpath)), "io.millrace.bench.BenchMain",
        List.of("container", "--mode", "preloaded", "--messages", messages, "--partitions", PARTITIONS, "--runs", "1"),
        "RESULT container ");
    ChildJvm samza = new ChildJvm("samza", jvmOptions, options.string("samza-cp", classpath),
        SamzaContainerBench.class.getName(),
        List.of("--messages", messages, "--partitions", PARTITIONS, "--timers", "off"),
        "RESULT samza-container ");

    double[] medians = alternate(millrace, samza, runs);
    System.out.printf(Locale.ROOT,
        "RESULT peers-container millrace_msgs_per_sec=%.1f samza_msgs_per_sec=%.1f ratio=%.3f runs=%d%n",
        medians[0], medians[1], medians[0] / medians[1], runs);
  }

  /**
   * Runs Millrace's child then Samza's, {@code runs} times, printing each round; returns the two
   * medians (Millrace's first).
   */
  static double[] alternate(ChildJvm millrace, ChildJvm samza, int runs) throws InterruptedException {
    double[] millraceRates = new double[runs];
    double[] samzaRates = new double[runs];
    for (int i = 0; i < runs; i++) {
      millraceRates[i] = millrace.run();
      samzaRates[i] = samza.run();
      System.out.printf(Locale.ROOT, "run %d/%d millrace_msgs_per_sec=%.1f samza_msgs_per_sec=%.1f%n",
          i + 1, runs, millraceRates[i], samzaRates[i]);
    }
    return new double[] {median(millraceRates), median(samzaRates)};
  }

  /** The classpath without Samza's jars, which the peers profile copies to target/peers-lib. */
  static String withoutPeersLib(String classpath) {
    return Arrays.stream(classpath.split(File.pathSeparator))
        .filter(entry -> {
          Path parent = Path.of(entry).getParent();
          return parent == null || !parent.getFileName().toString().equals(PEERS_LIB);
        })
        .collect(Collectors.joining(File.pathSeparator));
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
