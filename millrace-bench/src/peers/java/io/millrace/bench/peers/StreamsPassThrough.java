package io.millrace.bench.peers;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The pass-through job on Kafka Streams 4.3, for the same-run comparison of {@code bench kafka}:
 * {@code stream(in).mapValues(v -> v).to(out)}, byte-array serdes, one stream thread,
 * at-least-once, everything else Kafka Streams' defaults. Prints the same RESULT line as
 * Millrace's KafkaRun: {@code msgs_per_sec} from the first record to the last, {@code
 * whole_msgs_per_sec} from start() to a clean close() (output flushed, offsets committed), and
 * this JVM's CPU per record.
 */
public final class StreamsPassThrough {
  private StreamsPassThrough() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv, Set.of("bootstrap", "topic", "records"));
    String bootstrap = args.string("bootstrap", "127.0.0.1:9092");
    String topic = args.string("topic", "bench-in");
    long records = args.positiveLong("records", 10_000_000);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String out = "bench-streams-out-" + run;
    int partitions;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
          .get(topic).partitions().size();
      admin.createTopics(List.of(new NewTopic(out, partitions, (short) 1))).all()
          .get(30, TimeUnit.SECONDS);
    }
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
        .mapValues(v -> {
          count.lazySet(count.get() + 1); // one stream thread writes it
          return v;
        })
        .to(out, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
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
    System.out.printf(Locale.ROOT, "RESULT kafka-run mode=streams records=%d msgs_per_sec=%.0f "
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
