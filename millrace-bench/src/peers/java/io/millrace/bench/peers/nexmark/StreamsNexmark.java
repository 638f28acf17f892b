package io.millrace.bench.peers.nexmark;

import io.millrace.bench.kafka.BenchTopics;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.QueryRun;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One Nexmark query on Kafka Streams 4.3, in this JVM (a child of {@code bench nexmark}): its
 * documented defaults (RocksDB stores with changelogs, a 10 MB cache, commits every 30 s, or
 * {@code exactly_once_v2} with its 100 ms), a stream thread per core, from the topics' start;
 * under {@code --check true} commits every 500 ms.
 */
public final class StreamsNexmark {
  private StreamsNexmark() {}

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, 0).only("query", "bootstrap", "person", "auction", "bid", "out",
        "records", "quiet-ms", "guarantee", "check");
    NexmarkQuery query = NexmarkQuery.named(args.get("query", "q0"));
    String bootstrap = args.get("bootstrap", "127.0.0.1:9092");
    Map<String, String> topics = new HashMap<>();
    for (String input : query.inputs()) {
      topics.put(input, args.get(input, null));
    }
    String run = UUID.randomUUID().toString().substring(0, 8);
    Path state = Files.createTempDirectory("kafka-streams-nexmark");
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "nexmark-" + query.label() + "-" + run);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Runtime.getRuntime().availableProcessors());
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
        args.get("guarantee", "at-least-once").equals("exactly-once")
            ? StreamsConfig.EXACTLY_ONCE_V2 : StreamsConfig.AT_LEAST_ONCE);
    p.put("auto.offset.reset", "earliest");
    if (args.get("check", "false").equals("true")) {
      // A check reads the whole output after the run: KTables' caches flushed often, so the
      // output's growth shows when the run is done (their default is at each 30 s commit).
      p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
    }
    KafkaStreams streams = new KafkaStreams(
        new StreamsQueries(topics, args.get("out", null)).build(query).build(), p);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    streams.setUncaughtExceptionHandler(e -> {
      failure.compareAndSet(null, e);
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
          .StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    try {
      long cpu0 = QueryRun.cpuNanos();
      long start = System.nanoTime();
      streams.start();
      QueryRun.measure("kafka_streams", query, args.getLong("records", 0), bootstrap,
          args.get("out", null), run, args.getLong("quiet-ms", 3000), start, cpu0, failure::get,
          () -> streams.close(Duration.ofSeconds(120)));
      streams.cleanUp();
    } catch (Throwable e) {
      // A stalled or failed run must end this JVM: the stream threads are not daemons, and a
      // KafkaStreams left open kept a stalled q11 child (and its parent) waiting for good.
      streams.close(Duration.ofSeconds(30));
      throw e;
    } finally {
      TempDirs.deleteRecursively(state);
      BenchTopics.deleteRunTopics(bootstrap, run);
    }
  }
}
