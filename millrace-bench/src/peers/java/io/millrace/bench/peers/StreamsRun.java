package io.millrace.bench.peers;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One timed run of a Kafka Streams topology for {@code bench kafka}: Kafka Streams' defaults but
 * for one stream thread, at-least-once (or {@code exactly_once_v2} with {@code --eos true}) and
 * reading from the start. Prints the RESULT line of
 * Millrace's KafkaRun: {@code msgs_per_sec} from the first record to the last, {@code
 * whole_msgs_per_sec} from start() to a clean close() (output flushed, offsets committed), and
 * this JVM's CPU per record.
 */
final class StreamsRun {
  private StreamsRun() {}

  /** The application's properties: a fresh application id, so each run reads from the start. */
  static Properties properties(String bootstrap, String run) throws java.io.IOException {
    return properties(bootstrap, run, false, 0);
  }

  /**
   * As {@link #properties(String, String)}; {@code exactlyOnce}: {@code exactly_once_v2} with
   * commits every {@code commitMs} (Kafka Streams' own default under it is 100 ms).
   */
  static Properties properties(String bootstrap, String run, boolean exactlyOnce, long commitMs)
      throws java.io.IOException {
    Properties p = atLeastOnce(bootstrap, run);
    if (exactlyOnce) {
      p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
      p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitMs);
    }
    return p;
  }

  private static Properties atLeastOnce(String bootstrap, String run)
      throws java.io.IOException {
    Path state = Files.createTempDirectory("kafka-streams-bench");
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-streams-" + run);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    p.put("auto.offset.reset", "earliest");
    return p;
  }

  /**
   * Runs the topology until {@code count} (incremented by it) reaches {@code records}, closes it
   * and prints the RESULT line with {@code mode}.
   */
  static void measure(String mode, StreamsBuilder builder, Properties properties,
      AtomicLong count, long records) throws InterruptedException {
    KafkaStreams streams = new KafkaStreams(builder.build(), properties);
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
    System.out.printf(Locale.ROOT, "RESULT kafka-run mode=%s records=%d msgs_per_sec=%.0f "
            + "whole_msgs_per_sec=%.0f cpu_us_per_record=%.3f%n", mode, records,
        records / ((last - first) / 1e9), records / ((end - start) / 1e9),
        (cpuNanos() - cpu0) / 1e3 / records);
    streams.cleanUp();
    // Its output and internal topics: a broker kept between runs would fill the disk.
    String application = properties.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    io.millrace.bench.kafka.BenchTopics.deleteRunTopics(
        properties.getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG),
        application.substring(application.lastIndexOf('-') + 1));
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
