package io.millrace.kafka;

import io.millrace.kafka.dev.DevBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
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

  /** Creates a topic on a broker with topic configs (max.message.bytes, say). */
  public static void createTopic(String bootstrap, String topic, int partitions,
      Map<String, String> configs) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
          .all().get(30, TimeUnit.SECONDS);
      // Every partition's leader serving before the test's first send (only one answers a
      // listing of offsets; the admin client retries until it does): else an idempotent
      // producer's first batch, refused while the broker took the leadership and retried after
      // later ones landed, spins on out-of-order sequence errors until it expires (KAFKA-15591).
      // A listing made before the admin's metadata has the new topic fails at once (unknown
      // topic, seen in CI): it is made again until the deadline, as KafkaSystemAdmin waits for
      // the topic's leaders before it lists.
      Map<TopicPartition, OffsetSpec> partitionsOf = new java.util.HashMap<>();
      for (int p = 0; p < partitions; p++) {
        partitionsOf.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        try {
          admin.listOffsets(partitionsOf).all().get(30, TimeUnit.SECONDS);
          break;
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause()
              instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
              || System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(20);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic + ": " + e, e);
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
