package io.millrace.samza;

import io.millrace.core.testing.Await;
import io.millrace.kafka.dev.DevBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's broker, and its topics created, written and read with Kafka's own clients. A
 * class registers one as a static field, {@code @RegisterExtension static final TestKafka kafka =
 * TestKafka.perClass();}: the broker starts before the class's tests (and its own
 * {@code @BeforeAll} methods) and stops after them, its files in a folder of its own.
 */
final class TestKafka implements BeforeAllCallback, AfterAllCallback {
  private DevBroker broker;
  private Path dir;

  private TestKafka() {}

  /** A broker for one test class, started by JUnit before its tests. */
  static TestKafka perClass() {
    return new TestKafka();
  }

  /** Starts the broker, sized for a busy machine. */
  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("millrace-samza-broker");
    broker = DevBroker.start(dir, 0, Path.of("target", "broker-lib"),
        List.of("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
        Duration.ofSeconds(90));
  }

  /** Stops the broker (if it started) and deletes its files. */
  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    try {
      if (broker != null) {
        broker.stop();
      }
    } finally {
      broker = null;
      if (dir != null) {
        try (Stream<Path> files = Files.walk(dir)) {
          files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
      }
    }
  }

  String servers() {
    return broker.bootstrapServers();
  }

  void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers()))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all().get(60, TimeUnit.SECONDS);
    }
  }

  /** A topic of one partition, compacted (as a checkpoint topic must be). */
  void createCompactedTopic(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
          .configs(Map.of("cleanup.policy", "compact")))).all().get(60, TimeUnit.SECONDS);
    }
  }

  boolean exists(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", servers()))) {
      return admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(topic);
    }
  }

  /** Writes records of {partition, key, value} (key and value text, or null; or byte[]). */
  void write(String topic, List<Object[]> records) throws Exception {
    write(topic, records, false);
  }

  /**
   * Writes records as {@link #write(String, List)} does, in one transaction when {@code
   * transactional} (as an upstream exactly-once job writes: each partition written ends in the
   * transaction's commit marker, which takes an offset).
   *
   * @return each partition's offsets of the records written, in their order
   */
  Map<Integer, List<Long>> write(String topic, List<Object[]> records, boolean transactional)
      throws Exception {
    return write(topic, records, transactional, true);
  }

  /**
   * Writes records in one transaction and aborts it, as a crashed transactional writer's records
   * end: they take offsets, and a reader of committed data never sees them.
   */
  void writeAborted(String topic, List<Object[]> records) throws Exception {
    write(topic, records, true, false);
  }

  private Map<Integer, List<Long>> write(String topic, List<Object[]> records,
      boolean transactional, boolean commit) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", servers());
    if (transactional) {
      p.put("transactional.id", "test-writer-" + topic);
    }
    List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent =
        new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      if (transactional) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      for (Object[] r : records) {
        sent.add(producer.send(
            new ProducerRecord<>(topic, (Integer) r[0], bytes(r[1]), bytes(r[2]))));
      }
      if (transactional && commit) {
        producer.commitTransaction();
      } else if (transactional) {
        producer.flush();
        producer.abortTransaction();
      }
      producer.flush();
    }
    Map<Integer, List<Long>> offsets = new java.util.TreeMap<>();
    for (var f : sent) {
      var at = f.get(60, TimeUnit.SECONDS);
      offsets.computeIfAbsent(at.partition(), k -> new ArrayList<>()).add(at.offset());
    }
    return offsets;
  }

  static byte[] bytes(Object value) {
    if (value == null || value instanceof byte[]) {
      return (byte[]) value;
    }
    return ((String) value).getBytes(StandardCharsets.UTF_8);
  }

  /** Reads the topic from its start until {@code enough} holds of what was read. */
  List<ConsumerRecord<byte[], byte[]>> read(String topic, int partitions,
      Predicate<List<ConsumerRecord<byte[], byte[]>>> enough) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", servers());
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        all.add(new TopicPartition(topic, i));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Await.until(Await.DEADLINE, "records of " + topic, () -> {
        consumer.poll(Duration.ofMillis(100)).forEach(read::add);
        return enough.test(read);
      });
    }
    return read;
  }

  /**
   * Each partition's end offset now: the next offset to be written, or {@code committedOnly},
   * the last stable offset (a transaction still open holds it at its first record).
   */
  long[] endOffsets(String topic, int partitions, boolean committedOnly) {
    Properties p = new Properties();
    p.put("bootstrap.servers", servers());
    p.put("isolation.level", committedOnly ? "read_committed" : "read_uncommitted");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        all.add(new TopicPartition(topic, i));
      }
      Map<TopicPartition, Long> ends = consumer.endOffsets(all, Duration.ofSeconds(60));
      long[] offsets = new long[partitions];
      for (int i = 0; i < partitions; i++) {
        offsets[i] = ends.get(all.get(i));
      }
      return offsets;
    }
  }

  /**
   * Reads all the topic holds now: to each partition's end offset as of the call, past the
   * markers of transactions (which a job under {@code job.coordinator=kafka} writes).
   */
  List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partitions) throws Exception {
    return readAll(topic, partitions, false);
  }

  /**
   * As {@link #readAll(String, int)}; {@code committedOnly}: as a reader of committed data
   * ({@code read_committed}: to the last stable offset, aborted records left out).
   */
  List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partitions,
      boolean committedOnly) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", servers());
    if (committedOnly) {
      p.put("isolation.level", "read_committed");
    }
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        all.add(new TopicPartition(topic, i));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Map<TopicPartition, Long> ends = consumer.endOffsets(all);
      Await.until(Await.DEADLINE, "records of " + topic, () -> {
        consumer.poll(Duration.ofMillis(100)).forEach(read::add);
        for (TopicPartition tp : all) {
          if (consumer.position(tp) < ends.get(tp)) {
            return false;
          }
        }
        return true;
      });
    }
    return read;
  }
}
