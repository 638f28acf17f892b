package io.millrace.bench.kafka;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka benchmarks' input topic: P partitions, N records, 8-byte keys, 100-byte values (from a
 * pool of 1,024 random payloads), spread round-robin over the partitions. Filled once and reused
 * while it holds exactly N records.
 */
final class BenchInput {
  private BenchInput() {}

  /** Makes sure {@code topic} exists with {@code partitions} and holds {@code records} records. */
  static void ensure(String bootstrap, String topic, int partitions, long records, int valueBytes)
      throws Exception {
    ensure(bootstrap, topic, partitions, records, valueBytes, 100_000);
  }

  /** As above, with 8-byte keys from a cardinality of {@code keys} (record i: key i % keys). */
  static void ensure(String bootstrap, String topic, int partitions, long records, int valueBytes,
      long keys) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      TopicDescription existing = admin.listTopics().names().get(30, TimeUnit.SECONDS)
          .contains(topic) ? admin.describeTopics(List.of(topic)).allTopicNames()
          .get(30, TimeUnit.SECONDS).get(topic) : null;
      if (existing != null) {
        long held = 0;
        var specs = new java.util.HashMap<TopicPartition,
            org.apache.kafka.clients.admin.OffsetSpec>();
        for (int p = 0; p < existing.partitions().size(); p++) {
          specs.put(new TopicPartition(topic, p),
              org.apache.kafka.clients.admin.OffsetSpec.latest());
        }
        for (var info : admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).values()) {
          held += info.offset();
        }
        if (held == records && existing.partitions().size() == partitions) {
          System.out.printf("input: topic %s already holds %,d records in %d partitions%n", topic,
              records, partitions);
          return;
        }
        throw new IllegalStateException("topic " + topic + " exists with " + held + " records in "
            + existing.partitions().size() + " partitions; expected " + records + " in "
            + partitions + ": delete it or name another with --topic");
      }
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
          .get(30, TimeUnit.SECONDS);
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "1");
    p.put("linger.ms", "20");
    p.put("batch.size", "524288");
    p.put("buffer.memory", "268435456");
    long start = System.nanoTime();
    SplittableRandom random = new SplittableRandom(42);
    byte[][] values = new byte[1024][valueBytes];
    for (byte[] v : values) {
      for (int i = 0; i < v.length; i++) {
        v[i] = (byte) ('a' + random.nextInt(26));
      }
    }
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      for (long i = 0; i < records; i++) {
        byte[] key = java.nio.ByteBuffer.allocate(8).putLong(i % keys).array();
        producer.send(new ProducerRecord<>(topic, (int) (i % partitions), key,
            values[(int) (i & 1023)]));
      }
      producer.flush();
    }
    System.out.printf("input: wrote %,d records to %s in %.1f s%n", records, topic,
        (System.nanoTime() - start) / 1e9);
  }
}
