package io.millrace.bench.nexmark.run;

import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.QueryResult;
import io.millrace.bench.nexmark.generator.Generator;
import io.millrace.bench.nexmark.generator.GeneratorConfig;
import io.millrace.bench.nexmark.generator.NexmarkLoader;
import io.millrace.bench.nexmark.generator.NexmarkTopics;
import io.millrace.bench.nexmark.millrace.MillraceNexmark;
import io.millrace.bench.nexmark.model.QueryModel;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.ChildRun;
import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.Stats;
import io.millrace.kafka.dev.DevBroker;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code bench nexmark}: the Nexmark queries on Millrace, Kafka Streams and Flink, from the same
 * topics on the same broker, each run in a fresh JVM.
 *
 * <p>{@code --check}: a small deterministic run (default 50,000 events at 1,000 events/s of event
 * time: five 10-second windows); each system's output is read back and compared with the
 * model line for line, one {@code RESULT nexmark-check} line per query. Without it: {@code --runs}
 * rounds over the queries, the systems in a different order each round, and per query the median
 * input events per second of each system and the ratios, then their geometric means.
 */
public final class NexmarkBench {
  static final List<String> SYSTEMS = List.of("millrace", "kafka_streams", "flink");

  private NexmarkBench() {}

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Exception {
    boolean check = Arrays.asList(argv).contains("--check");
    Args args = new Args(Arrays.stream(argv).filter(a -> !a.equals("--check"))
        .toArray(String[]::new), 0).only("queries", "events", "rate", "seed", "partitions",
        "runs", "guarantee", "systems", "bootstrap", "jvm-opts", "out-of-order", "quiet-ms");
    List<NexmarkQuery> queries = Arrays.stream(args.get("queries",
            Arrays.stream(NexmarkQuery.values()).map(NexmarkQuery::label)
                .collect(Collectors.joining(","))).split(","))
        .filter(s -> !s.isBlank()).map(NexmarkQuery::named).toList();
    List<String> systems = args.getList("systems", String.join(",", SYSTEMS), SYSTEMS);
    String guarantee = args.getList("guarantee", "at-least-once",
        List.of("at-least-once", "exactly-once")).get(0);
    GeneratorConfig config = new GeneratorConfig(args.getLong("seed", 42),
        args.getLong("events", check ? 50_000 : 10_000_000),
        args.getLong("rate", check ? 1_000 : 10_000), GeneratorConfig.DEFAULT_BASE_TIME,
        (int) args.getLong("out-of-order", 1), 2, 4, 4, 100, 1000, 200, 500, 100);
    int partitions = (int) args.getLong("partitions", 4);
    int runs = (int) args.getLong("runs", 3);
    long quietMs = args.getLong("quiet-ms", 3000);
    List<String> jvm = List.of(args.get("jvm-opts", "-Xmx3g").trim().split("\\s+"));
    Classpaths classpaths = Classpaths.find();
    if (classpaths.peers() == null && (systems.contains("kafka_streams")
        || systems.contains("flink"))) {
      System.out.println("the peers are not built: Kafka Streams and Flink left out (build them "
          + "with mvn -B -q -Ppeers -pl millrace-bench -am package -DskipTests)");
    }

    DevBroker broker = null;
    String bootstrap = args.get("bootstrap", null);
    if (bootstrap == null) {
      broker = BenchJobs.startBroker();
      bootstrap = broker.bootstrapServers();
      System.out.println("broker: " + bootstrap + " (pid " + broker.pid() + ", -Xmx1g)");
    }
    try {
      NexmarkTopics topics = NexmarkTopics.of(config, partitions);
      long[] held = NexmarkLoader.ensure(bootstrap, config, topics);
      Runner runner = new Runner(bootstrap, topics, held, classpaths, jvm, guarantee, quietMs);
      System.out.printf(Locale.ROOT, "settings: %s; events %,d at %,d/s of event time, seed %d, "
              + "out-of-order groups of %d, %d partitions; Millrace: DSL, RocksDB stores with "
              + "Kafka changelogs, a container per core; Kafka Streams 4.3: a stream thread per "
              + "core, RocksDB stores with changelogs; Flink 2.2: a MiniCluster, parallelism = "
              + "cores, RocksDB state backend, checkpoints every 10 s%n", guarantee,
          config.events(), config.eventsPerSecond(), config.seed(),
          config.outOfOrderGroupSize(), partitions);
      if (check) {
        runner.check = true;
        check(runner, config, queries, systems);
      } else {
        throughput(runner, queries, systems, runs);
      }
    } finally {
      if (broker != null) {
        BenchJobs.stopBroker(broker);
      }
    }
  }

  private static void check(Runner runner, GeneratorConfig config, List<NexmarkQuery> queries,
      List<String> systems) throws Exception {
    List<Object> events = new ArrayList<>();
    new Generator(config).forEachRemaining(events::add);
    for (NexmarkQuery query : queries) {
      List<String> expected = QueryModel.expected(query, events);
      Map<String, String> verdicts = new LinkedHashMap<>();
      for (String system : SYSTEMS) {
        String verdict;
        if (!systems.contains(system)) {
          verdict = "skipped";
        } else if (!runner.has(system, query)) {
          verdict = system.equals("millrace") ? "not-yet" : "not-built";
        } else {
          try {
            QueryResult result = new QueryResult(query);
            runner.run(system, query, result);
            verdict = QueryResult.compare(expected, result.lines());
          } catch (Exception e) {
            verdict = "failed: " + e.getMessage();
          }
        }
        if (!List.of("match", "not-yet", "skipped").contains(verdict)) {
          System.out.println(query.label() + " on " + system + ": " + verdict);
        }
        verdicts.put(system, verdict.split(":")[0]);
      }
      System.out.printf("RESULT nexmark-check query=%s millrace=%s kafka_streams=%s flink=%s "
              + "expected_lines=%d%n", query.label(), verdicts.get("millrace"),
          verdicts.get("kafka_streams"), verdicts.get("flink"), expected.size());
    }
  }

  private static void throughput(Runner runner, List<NexmarkQuery> queries, List<String> systems,
      int runs) throws Exception {
    Map<NexmarkQuery, Map<String, List<Double>>> rates = new LinkedHashMap<>();
    for (int round = 0; round < runs; round++) {
      // Each round starts with another system, so no system always runs first (cold page cache).
      List<String> order = new ArrayList<>(systems);
      java.util.Collections.rotate(order, -round);
      for (NexmarkQuery query : queries) {
        for (String system : order) {
          if (!runner.has(system, query)) {
            continue;
          }
          double eps = runner.run(system, query, null);
          rates.computeIfAbsent(query, q -> new LinkedHashMap<>())
              .computeIfAbsent(system, s -> new ArrayList<>()).add(eps);
          System.out.printf(Locale.ROOT, "round %d %s %s: %,.0f events/s%n", round + 1,
              query.label(), system, eps);
        }
      }
    }
    Map<String, List<Double>> ratios = new LinkedHashMap<>();
    for (var e : rates.entrySet()) {
      Map<String, Double> median = new LinkedHashMap<>();
      e.getValue().forEach((s, r) -> median.put(s,
          Stats.median(r.stream().mapToDouble(Double::doubleValue).toArray())));
      double overStreams = ratio(median, "kafka_streams");
      double overFlink = ratio(median, "flink");
      ratios.computeIfAbsent("over_kafka_streams", k -> new ArrayList<>()).add(overStreams);
      ratios.computeIfAbsent("over_flink", k -> new ArrayList<>()).add(overFlink);
      System.out.printf(Locale.ROOT, "RESULT nexmark query=%s millrace_eps=%s kafka_streams_eps=%s"
              + " flink_eps=%s over_kafka_streams=%s over_flink=%s runs=%d guarantee=%s%n",
          e.getKey().label(), fmt(median.get("millrace"), "%.0f"),
          fmt(median.get("kafka_streams"), "%.0f"), fmt(median.get("flink"), "%.0f"),
          fmt(overStreams, "%.2f"), fmt(overFlink, "%.2f"), runs, runner.guarantee);
    }
    System.out.printf(Locale.ROOT, "RESULT nexmark-geomean over_kafka_streams=%s over_flink=%s "
            + "queries=%d%n", fmt(geomean(ratios.get("over_kafka_streams")), "%.2f"),
        fmt(geomean(ratios.get("over_flink")), "%.2f"), rates.size());
  }

  private static double ratio(Map<String, Double> median, String peer) {
    Double m = median.get("millrace");
    Double p = median.get(peer);
    return m == null || p == null ? Double.NaN : m / p;
  }

  static double geomean(List<Double> values) {
    List<Double> known = values == null ? List.of()
        : values.stream().filter(v -> !v.isNaN()).toList();
    if (known.isEmpty()) {
      return Double.NaN;
    }
    return Math.exp(known.stream().mapToDouble(Math::log).sum() / known.size());
  }

  private static String fmt(Double value, String format) {
    return value == null || value.isNaN() ? "n/a" : String.format(Locale.ROOT, format, value);
  }

  /** The child JVMs' classpaths: Millrace's, Kafka Streams' and Flink's (two RocksDB jars). */
  record Classpaths(String millrace, Path peers) {
    static Classpaths find() {
      String millrace = Arrays.stream(System.getProperty("java.class.path")
              .split(File.pathSeparator)).filter(e -> !e.contains("peers-lib"))
          .collect(Collectors.joining(File.pathSeparator));
      Path peers = Path.of(System.getProperty("millrace.peers.lib",
          "millrace-bench/target/peers-lib"));
      return new Classpaths(millrace, Files.isDirectory(peers) && peersBuilt() ? peers : null);
    }

    /** Whether this build has the peers' queries (a build without -Ppeers leaves them out). */
    private static boolean peersBuilt() {
      try {
        Class.forName("io.millrace.bench.peers.nexmark.StreamsNexmark", false,
            NexmarkBench.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException e) {
        return false;
      }
    }

    /**
     * Millrace's classpath plus the peers' jars, without those of the other peer: Flink's
     * RocksDB (frocksdbjni) and the project's rocksdbjni hold the same classes. Flink's also
     * takes its Kafka connector's kafka-clients (4.2) from {@code flink-lib} beside peers-lib.
     */
    String peer(String system) {
      List<String> drop = system.equals("flink")
          ? List.of("rocksdbjni-", "kafka-streams-", "samza", "kafka-clients-")
          : List.of("frocksdbjni", "flink-");
      Stream<String> own = Arrays.stream(millrace.split(File.pathSeparator))
          .filter(e -> drop.stream().noneMatch(d -> new File(e).getName().startsWith(d)));
      Stream<String> peerJars;
      try (Stream<Path> files = Files.list(peers)) {
        peerJars = files.map(Path::toString).toList().stream()
            .filter(e -> drop.stream().noneMatch(d -> new File(e).getName().startsWith(d)));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      Stream<String> flinkJars = Stream.empty();
      Path flinkLib = peers.resolveSibling("flink-lib");
      if (system.equals("flink") && Files.isDirectory(flinkLib)) {
        try (Stream<Path> files = Files.list(flinkLib)) {
          flinkJars = files.map(Path::toString).toList().stream();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
      return Stream.concat(Stream.concat(own, peerJars), flinkJars)
          .collect(Collectors.joining(File.pathSeparator));
    }
  }

  /** Runs one query on one system in a child JVM. */
  static final class Runner {
    private final String bootstrap;
    private final NexmarkTopics topics;
    private final long[] held;
    private final Classpaths classpaths;
    private final List<String> jvm;
    final String guarantee;
    private final long quietMs;

    boolean check;

    Runner(String bootstrap, NexmarkTopics topics, long[] held, Classpaths classpaths,
        List<String> jvm, String guarantee, long quietMs) {
      this.bootstrap = bootstrap;
      this.topics = topics;
      this.held = held;
      this.classpaths = classpaths;
      this.jvm = jvm;
      this.guarantee = guarantee;
      this.quietMs = quietMs;
    }

    boolean has(String system, NexmarkQuery query) {
      return system.equals("millrace") ? MillraceNexmark.application(query) != null
          : classpaths.peers() != null;
    }

    /** Runs it; fills {@code result} from its output if given; returns its input events/s. */
    double run(String system, NexmarkQuery query, QueryResult result) throws Exception {
      String out = "nexmark-out-" + query.label() + "-" + system.replace('_', '-') + "-"
          + UUID.randomUUID().toString().substring(0, 8);
      OutputTopic.create(bootstrap, out, topics.partitions());
      try {
        long records = 0;
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvm);
        command.add("-cp");
        command.add(system.equals("millrace") ? classpaths.millrace() : classpaths.peer(system));
        command.add(switch (system) {
          case "millrace" -> MillraceNexmark.class.getName();
          case "kafka_streams" -> "io.millrace.bench.peers.nexmark.StreamsNexmark";
          default -> "io.millrace.bench.peers.nexmark.FlinkNexmark";
        });
        command.addAll(List.of("--query", query.label(), "--bootstrap", bootstrap, "--out", out,
            "--guarantee", guarantee, "--quiet-ms", Long.toString(quietMs),
            "--check", Boolean.toString(check)));
        for (String input : query.inputs()) {
          int i = List.of("person", "auction", "bid").indexOf(input);
          records += held[i];
          command.addAll(List.of("--" + input, i == 0 ? topics.person() : i == 1
              ? topics.auction() : topics.bid()));
        }
        command.addAll(List.of("--records", Long.toString(records)));
        Map<String, String> r = ChildRun.run(system + " " + query.label(), command);
        if (result != null) {
          OutputTopic.read(bootstrap, out, result);
        }
        return Double.parseDouble(r.get("eps"));
      } finally {
        OutputTopic.delete(bootstrap, out);
      }
    }
  }
}
