package io.millrace.bench.peers;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;

/**
 * A count per key on Kafka Streams 4.3, for the same-run comparison of {@code bench kafka --modes
 * count,streams-count}: {@code stream(in).groupByKey().count()} into a RocksDB store whose
 * changelog Kafka Streams creates, byte-array keys, one stream thread, at-least-once, everything
 * else Kafka Streams' defaults (10 MB record cache, commit every 30 s). Prints the same RESULT line
 * as Millrace's KafkaRun.
 */
public final class StreamsCount {
  private StreamsCount() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv, Set.of("bootstrap", "topic", "records"));
    String bootstrap = args.string("bootstrap", "127.0.0.1:9092");
    String topic = args.string("topic", "bench-in");
    long records = args.positiveLong("records", 10_000_000);
    String run = UUID.randomUUID().toString().substring(0, 8);
    Path state = Files.createTempDirectory("kafka-streams-bench");
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-streams-" + run);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    p.put("auto.offset.reset", "earliest");
    AtomicLong count = new AtomicLong();
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .peek((k, v) -> count.lazySet(count.get() + 1)) // one stream thread writes it
        .groupByKey(Grouped.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .count(Materialized.as("counts"));
    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    long cpu0 = cpuNanos();
    long start = System.nanoTime();
    streams.start();
    long first = 0;
    long last;
    long deadline = start + TimeUnit.MINUTES.toNanos(10);
    while (true) {
      long c = count.get();
      long now = System.nanoTime();
      if (first == 0 && c > 0) {
        first = now;
      }
      if (c >= records) {
        last = now;
        break;
      }
      if (now > deadline || streams.state() == KafkaStreams.State.ERROR) {
        throw new IllegalStateException("Kafka Streams processed " + c + " of " + records
            + " (state " + streams.state() + ")");
      }
      TimeUnit.MILLISECONDS.sleep(1);
    }
    streams.close(Duration.ofSeconds(120));
    long end = System.nanoTime();
    System.out.printf(Locale.ROOT, "RESULT kafka-run mode=streams-count records=%d msgs_per_sec=%.0f "
            + "whole_msgs_per_sec=%.0f cpu_us_per_record=%.3f%n", records,
        records / ((last - first) / 1e9), records / ((end - start) / 1e9),
        (cpuNanos() - cpu0) / 1e3 / records);
    streams.cleanUp();
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
