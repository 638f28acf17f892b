package io.millrace.bench.peers;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The store-count benchmark on Millrace and on Samza 1.8 in the same run: R rounds, each a fresh
 * JVM for Millrace's {@code BenchMain store-count --store rocksdb --runs 1} and a fresh JVM for
 * {@link SamzaStoreCountBench}, then the medians and their ratio. Both use RocksDB (the same
 * rocksdbjni 8.11.4, which the build pins: Samza 1.8's store runs on it unchanged), each with its
 * own defaults.
 *
 * <p>Usage: {@code PeersStoreCountBench [--messages N] [--keys K] [--runs R] [--jvm-opts ...]};
 * {@code --keys} defaults to N (every key new: each read goes to RocksDB).
 */
public final class PeersStoreCountBench {
  private PeersStoreCountBench() {
  }

  public static void main(String[] args) throws InterruptedException {
    BenchArgs options = new BenchArgs(args, Set.of("messages", "keys", "runs", "jvm-opts"));
    String messages = Long.toString(options.positiveLong("messages", 2_000_000L));
    String keys = Long.toString(options.positiveLong("keys", Long.parseLong(messages)));
    int runs = Math.toIntExact(options.positiveLong("runs", 5));
    List<String> jvmOptions = List.of(options.string("jvm-opts", "-Xmx4g").trim().split("\\s+"));
    String classpath = System.getProperty("java.class.path");

    ChildJvm millrace = new ChildJvm("millrace", jvmOptions,
        PeersContainerBench.withoutPeersLib(classpath), "io.millrace.bench.BenchMain",
        List.of("store-count", "--store", "rocksdb", "--messages", messages, "--keys", keys,
            "--partitions", "8", "--runs", "1"), "RESULT store-count ");
    ChildJvm samza = new ChildJvm("samza", jvmOptions, classpath,
        SamzaStoreCountBench.class.getName(),
        List.of("--messages", messages, "--keys", keys, "--partitions", "8"),
        "RESULT samza-store-count ");
    double[] medians = PeersContainerBench.alternate(millrace, samza, runs);
    double m = medians[0];
    double s = medians[1];
    System.out.printf(Locale.ROOT,
        "RESULT peers-store-count millrace_msgs_per_sec=%.1f samza_msgs_per_sec=%.1f ratio=%.3f keys=%s "
            + "messages=%s runs=%d%n", m, s, m / s, keys, messages, runs);
  }
}
