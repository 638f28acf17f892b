package io.millrace.bench.kafka;

import io.millrace.bench.support.Args;
import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.ChildRun;
import io.millrace.bench.support.Stats;
import io.millrace.kafka.dev.DevBroker;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The Kafka benchmarks, each run in a fresh JVM, alternating in rounds so every figure sees the
 * same machine: the raw ceiling (one plain KafkaConsumer), the client's own pass-through
 * ({@code bare}, {@code bare-eos}: {@link BareClient}), Millrace's consume-only job, Millrace's
 * pass-through job and, when the {@code peers} profile's jars are there, Kafka Streams running the
 * same pass-through topology. Ends with a RESULT line per mode (medians) and the ratios.
 *
 * <p>{@code --warmup 1} round runs first and is not counted (the broker's JIT and page cache).
 *
 * <p>Unless {@code --bootstrap} names a broker, it starts a single-node broker (the same one as
 * {@code bin/millrace kafka-dev}) on 127.0.0.1 for the run, so it can also report the broker's CPU
 * per record: on two shared cores, CPU per record is what decides throughput.
 */
public final class KafkaBench {
  private KafkaBench() {}

  /** Runs the rounds; see the class comment. */
  public static void main(String[] argv) throws Exception {
    run(argv, "raw,consume,passthrough,streams", 10_000_000, 100_000);
  }

  /**
   * {@code bench kafka-eos}: the exactly-once modes and Kafka Streams' {@code exactly_once_v2},
   * with Millrace's at-least-once ones beside them (the cost of the guarantee), over 1,000,000
   * keys (the count's state).
   */
  public static void exactlyOnce(String[] argv) throws Exception {
    run(argv, "passthrough,passthrough-eos,streams-eos,count,count-eos,streams-count-eos",
        5_000_000, 1_000_000);
  }

  private static void run(String[] argv, String defaultModes, long defaultRecords,
      long defaultKeys) throws Exception {
    // Options are checked first: a misspelt one must not cost a 10M-record load before failing.
    Args args = new Args(argv, 0).only("records", "partitions", "runs", "warmup", "keys", "topic",
        "modes", "jvm-opts", "peers-lib", "bootstrap", "broker-pid", "commit-ms");
    long records = args.getLong("records", defaultRecords);
    int partitions = (int) args.getLong("partitions", 8);
    int runs = (int) args.getLong("runs", 3);
    // Rounds run first and not counted: the broker's JIT and page cache warm up in them.
    int warmup = (int) args.getLong("warmup", 1);
    long keys = args.getLong("keys", defaultKeys);
    String topic = args.get("topic", "bench-in-" + partitions + "x" + records
        + (keys == 100_000 ? "" : "-k" + keys));
    List<String> modes = new ArrayList<>(args.getList("modes", defaultModes,
        List.of("raw", "bare", "bare-eos", "bare-split", "consume", "passthrough", "count", "streams",
            "streams-count",
            "passthrough-eos", "count-eos", "streams-eos", "streams-count-eos")));
    // The commit interval of the exactly-once modes, Millrace's and Kafka Streams' alike.
    long commitMs = args.getLong("commit-ms", 100);
    List<String> jvm = List.of(args.get("jvm-opts", "-Xmx2g").trim().split("\\s+"));
    Path peersLib = Path.of(args.get("peers-lib", "millrace-bench/target/peers-lib"));
    if (modes.stream().anyMatch(m -> m.startsWith("streams")) && !Files.isDirectory(peersLib)) {
      System.out.println("no " + peersLib + ": Kafka Streams left out (build it with mvn -B -q "
          + "-Ppeers -pl millrace-bench -am package -DskipTests)");
      modes.removeIf(m -> m.startsWith("streams"));
    }
    DevBroker broker = null;
    String bootstrap = args.get("bootstrap", null);
    Optional<ProcessHandle> brokerProcess = Optional.empty();
    if (bootstrap == null) {
      Path dir = Files.createTempDirectory("millrace-bench-broker");
      broker = DevBroker.start(dir, 0, Path.of(System.getProperty("millrace.broker.lib",
          "millrace-kafka/target/broker-lib")), List.of("-Xms1g", "-Xmx1g"), Duration.ofSeconds(90));
      bootstrap = broker.bootstrapServers();
      brokerProcess = ProcessHandle.of(broker.pid());
      System.out.println("broker: " + bootstrap + " (pid " + broker.pid() + ", -Xmx1g), data in "
          + dir);
    } else if (args.get("broker-pid", null) != null) {
      brokerProcess = ProcessHandle.of(Long.parseLong(args.get("broker-pid", null)));
    }
    try {
      BenchInput.ensure(bootstrap, topic, partitions, records, 100, keys);
      String classpath = System.getProperty("java.class.path");
      String millraceCp = Arrays.stream(classpath.split(File.pathSeparator))
          .filter(e -> !e.contains("peers-lib")).collect(Collectors.joining(File.pathSeparator));
      String streamsCp = millraceCp + File.pathSeparator + peersLib.toAbsolutePath() + "/*";
      Map<String, List<double[]>> results = new LinkedHashMap<>();
      for (int round = 1 - warmup; round <= runs; round++) {
        for (String mode : modes) {
          List<String> command = new ArrayList<>();
          command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
          command.addAll(jvm);
          command.add("-cp");
          boolean exactlyOnce = mode.endsWith("-eos");
          String base = exactlyOnce ? mode.substring(0, mode.length() - 4) : mode;
          if (base.startsWith("streams")) {
            command.add(streamsCp);
            command.add(base.equals("streams-count") ? "io.millrace.bench.peers.StreamsCount"
                : "io.millrace.bench.peers.StreamsPassThrough");
            if (exactlyOnce) {
              command.addAll(List.of("--eos", "on", "--commit-ms", Long.toString(commitMs)));
            }
          } else if (base.startsWith("bare")) {
            command.add(millraceCp);
            command.add(KafkaRun.class.getName());
            command.addAll(List.of("--mode", mode));
            if (exactlyOnce) { // at-least-once: Millrace's default interval, as passthrough has
              command.addAll(List.of("--commit-ms", Long.toString(commitMs)));
            }
          } else {
            command.add(millraceCp);
            command.add(KafkaRun.class.getName());
            command.add("--mode");
            command.add(base);
            if (exactlyOnce) {
              command.addAll(List.of("--set", "task.processing.guarantee=exactly-once,"
                  + "task.checkpoint.system=kafka,task.commit.ms=" + commitMs));
            }
          }
          command.addAll(List.of("--bootstrap", bootstrap, "--topic", topic, "--records",
              Long.toString(records)));
          long brokerCpu0 = brokerCpuNanos(brokerProcess);
          Map<String, String> r = ChildRun.run(mode, command);
          long brokerCpu = brokerCpuNanos(brokerProcess) - brokerCpu0;
          double[] figures = {Double.parseDouble(r.get("msgs_per_sec")),
              Double.parseDouble(r.get("whole_msgs_per_sec")),
              Double.parseDouble(r.get("cpu_us_per_record")),
              brokerCpu < 0 ? Double.NaN : brokerCpu / 1e3 / records};
          if (round > 0) {
            results.computeIfAbsent(mode, m -> new ArrayList<>()).add(figures);
          }
          System.out.printf(Locale.ROOT, "%s %s: %,.0f records/s (whole run %,.0f), client "
                  + "CPU %.2f us/record, broker CPU %.2f us/record%n",
              round > 0 ? "round " + round : "warm-up", mode, figures[0], figures[1], figures[2],
              figures[3]);
        }
      }
      Map<String, Double> medians = new HashMap<>();
      for (Map.Entry<String, List<double[]>> e : results.entrySet()) {
        double[] rate = e.getValue().stream().mapToDouble(f -> f[0]).toArray();
        double[] whole = e.getValue().stream().mapToDouble(f -> f[1]).toArray();
        double[] cpu = e.getValue().stream().mapToDouble(f -> f[2]).toArray();
        double[] brokerCpu = e.getValue().stream().mapToDouble(f -> f[3]).toArray();
        medians.put(e.getKey(), Stats.median(rate));
        System.out.printf(Locale.ROOT, "RESULT kafka mode=%s msgs_per_sec=%.0f min=%.0f max=%.0f "
                + "whole_msgs_per_sec=%.0f client_cpu_us_per_record=%.3f "
                + "broker_cpu_us_per_record=%.3f runs=%d records=%d partitions=%d%n", e.getKey(),
            Stats.median(rate), Stats.min(rate), Stats.max(rate), Stats.median(whole),
            Stats.median(cpu), Stats.median(brokerCpu), runs, records, partitions);
      }
      if (medians.containsKey("raw") && medians.containsKey("consume")) {
        System.out.printf(Locale.ROOT, "RESULT kafka-ratio consume_over_raw=%.3f%n",
            medians.get("consume") / medians.get("raw"));
      }
      if (medians.containsKey("streams") && medians.containsKey("passthrough")) {
        System.out.printf(Locale.ROOT, "RESULT kafka-ratio passthrough_over_kafka_streams=%.3f%n",
            medians.get("passthrough") / medians.get("streams"));
      }
      if (medians.containsKey("streams-count") && medians.containsKey("count")) {
        System.out.printf(Locale.ROOT, "RESULT kafka-ratio count_over_kafka_streams=%.3f%n",
            medians.get("count") / medians.get("streams-count"));
      }
      ratio(medians, "passthrough-eos", "streams-eos",
          "passthrough_eos_over_kafka_streams_eos");
      ratio(medians, "count-eos", "streams-count-eos", "count_eos_over_kafka_streams_count_eos");
      ratio(medians, "passthrough-eos", "passthrough", "passthrough_eos_over_passthrough");
      ratio(medians, "passthrough", "bare", "passthrough_over_bare");
      ratio(medians, "bare-split", "bare", "bare_split_over_bare");
      ratio(medians, "passthrough-eos", "bare-eos", "passthrough_eos_over_bare_eos");
      ratio(medians, "count-eos", "count", "count_eos_over_count");
    } finally {
      if (broker != null) {
        BenchJobs.stopBroker(broker); // and its topics: gigabytes after a few runs
      }
    }
  }

  private static void ratio(Map<String, Double> medians, String mode, String over, String name) {
    if (medians.containsKey(mode) && medians.containsKey(over)) {
      System.out.printf(Locale.ROOT, "RESULT kafka-ratio %s=%.3f%n", name,
          medians.get(mode) / medians.get(over));
    }
  }

  private static long brokerCpuNanos(Optional<ProcessHandle> broker) {
    return broker.flatMap(p -> p.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);
  }
}
