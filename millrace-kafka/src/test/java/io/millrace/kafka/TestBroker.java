package io.millrace.kafka;

import io.millrace.kafka.admin.KafkaSystemAdmin;
import io.millrace.kafka.dev.DevBroker;
import io.millrace.kafka.settings.KafkaSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Real Kafka brokers for the tests: {@link #shared()} is one broker per test JVM, started on first
 * use and stopped when the JVM exits; {@link #dedicated} starts one a test may kill and restart.
 * Each runs in a child JVM from target/broker-lib (copied by the build before the tests run),
 * on 127.0.0.1 only.
 */
public final class TestBroker {
  /** C1 only and a small heap: the broker starts faster and leaves the cores to the tests. */
  static final List<String> JVM_OPTIONS = List.of("-Xms128m", "-Xmx768m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1", "-Xshare:auto");
  private static DevBroker shared;

  private TestBroker() {}

  /** The shared broker of this test JVM. */
  public static synchronized DevBroker shared() {
    if (shared == null) {
      shared = dedicated("shared");
      DevBroker broker = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(broker::stop, "stop-test-broker"));
    }
    return shared;
  }

  /** A broker of its own, under target/test-brokers/<name>-<pid>; the caller stops it. */
  public static DevBroker dedicated(String name) {
    try {
      Path dir = Path.of("target", "test-brokers", name + "-" + ProcessHandle.current().pid()
          + "-" + System.nanoTime());
      Files.createDirectories(dir);
      return DevBroker.start(dir, 0, Path.of("target", "broker-lib"), JVM_OPTIONS,
          Duration.ofSeconds(90));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates a topic on a broker. */
  public static void createTopic(String bootstrap, String topic, int partitions) {
    createTopic(bootstrap, topic, partitions, Map.of());
  }

  /**
   * Creates a topic on a broker with topic configs (max.message.bytes, say), as the runtime does:
   * every partition's leader serving before the test's first send, else an idempotent producer's
   * first batch, refused while the broker took the leadership and retried after later ones
   * landed, spins on out-of-order sequence errors until it expires (KAFKA-15591).
   */
  public static void createTopic(String bootstrap, String topic, int partitions,
      Map<String, String> configs) {
    try (KafkaSystemAdmin admin = new KafkaSystemAdmin(
        KafkaSettings.of("kafka", Map.of("bootstrap.servers", bootstrap)), "test-create-topic")) {
      admin.create(topic, partitions, (short) 1, configs);
    }
  }

  /** A string producer on a broker, acks=all. */
  public static KafkaProducer<String, String> producer(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("linger.ms", "5");
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /** Writes key/value pairs to a topic partition and waits for them. */
  public static void write(String bootstrap, String topic, int partition, List<String[]> records) {
    try (KafkaProducer<String, String> producer = producer(bootstrap)) {
      for (String[] kv : records) {
        producer.send(new ProducerRecord<>(topic, partition, kv[0], kv[1]));
      }
      producer.flush();
    }
  }
}
