package io.millrace.bench.nexmark.run;

import io.millrace.bench.nexmark.QueryResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** A run's output topic: made before the run, read whole after it, deleted. */
final class OutputTopic {
  private OutputTopic() {}

  static void create(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  static void delete(String bootstrap, String topic) {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("could not delete " + topic + ": " + e);
    }
  }

  /** Every committed record of the topic into {@code result}, partition by partition. */
  static void read(String bootstrap, String topic, QueryResult result) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("enable.auto.commit", "false");
    p.put("isolation.level", "read_committed");
    p.put("max.poll.records", "10000");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer.partitionsFor(topic, Duration.ofSeconds(30)).forEach(info ->
          partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end in 5 min");
        }
        for (var r : consumer.poll(Duration.ofMillis(200))) {
          result.add(r.key(), r.value());
        }
      }
    }
  }
}
