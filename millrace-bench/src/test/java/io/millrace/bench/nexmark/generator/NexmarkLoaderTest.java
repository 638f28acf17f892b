package io.millrace.bench.nexmark.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EndOfInput;
import io.millrace.bench.nexmark.events.EventCodec;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** The loader on a real broker (the one bin/millrace kafka-dev runs, from millrace-kafka's build). */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NexmarkLoaderTest {
  private static DevBroker broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = DevBroker.start(Files.createTempDirectory("nexmark-loader-test"), 0,
        Path.of("..", "millrace-kafka", "target", "broker-lib"),
        List.of("-Xms128m", "-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
        Duration.ofSeconds(90));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    io.millrace.bench.support.BenchJobs.stopBroker(broker);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partitions) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tps.add(new TopicPartition(topic, i));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps);
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  @Test
  void writesEachEventWithItsEventTimeAndEndsEveryPartitionWithAMarker() throws Exception {
    GeneratorConfig config = GeneratorConfig.defaults(5, 5_000).withEventsPerSecond(1_000);
    NexmarkTopics topics = NexmarkTopics.of(config, 3);
    long[] held = NexmarkLoader.ensure(broker.bootstrapServers(), config, topics);
    assertThat(held).containsExactly(100 + 3, 300 + 3, 4_600 + 3);

    List<Bid> expected = new ArrayList<>();
    new Generator(config).forEachRemaining(e -> {
      if (e instanceof Bid b) {
        expected.add(b);
      }
    });
    Map<Integer, List<Bid>> perPartition = new HashMap<>();
    List<Bid> bids = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : readAll(topics.bid(), 3)) {
      Bid b = EventCodec.decodeBid(r.value());
      assertThat(r.timestamp()).isEqualTo(b.dateTime());
      perPartition.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(b);
      if (!EndOfInput.is(b)) {
        bids.add(b);
      }
    }
    assertThat(bids).containsExactlyInAnyOrderElementsOf(expected);
    long end = config.timestampOf(config.events()) + EndOfInput.AFTER_LAST_EVENT_MS;
    for (List<Bid> partition : perPartition.values()) {
      Bid last = partition.get(partition.size() - 1);
      assertThat(EndOfInput.is(last)).isTrue();
      assertThat(last.dateTime()).isEqualTo(end);
      // A partition keeps the generator's order: event time never goes back in an in-order run.
      for (int i = 1; i < partition.size(); i++) {
        assertThat(partition.get(i).dateTime()).isGreaterThanOrEqualTo(
            partition.get(i - 1).dateTime());
      }
    }

    // Loaded once: a second run with the same settings reuses the topics as they are.
    assertThat(NexmarkLoader.ensure(broker.bootstrapServers(), config, topics)).isEqualTo(held);
    assertThat(readAll(topics.bid(), 3)).hasSize((int) held[2]);
  }

  @Test
  void topicsHoldingSomethingElseAreRefusedNamingThem() throws Exception {
    GeneratorConfig config = GeneratorConfig.defaults(6, 500);
    NexmarkTopics topics = NexmarkTopics.of(config, 2);
    NexmarkLoader.ensure(broker.bootstrapServers(), config, topics);
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p,
        new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>(topics.bid(), 0, null, new byte[] {1})).get();
    }
    assertThatThrownBy(() -> NexmarkLoader.ensure(broker.bootstrapServers(), config, topics))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(topics.bid())
        .hasMessageContaining("delete them");
  }

  // Last: after a deleteRecords, CI's broker answered NOT_LEADER_OR_FOLLOWER for partitions of
  // topics made in the next seconds, for two minutes (twice; never here).
  @Test
  @Order(Integer.MAX_VALUE)
  void topicsWhoseFirstRecordsTheBrokerDeletedAreRefused() throws Exception {
    GeneratorConfig config = GeneratorConfig.defaults(7, 500);
    NexmarkTopics topics = NexmarkTopics.of(config, 2);
    NexmarkLoader.ensure(broker.bootstrapServers(), config, topics);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      // What a broker's time retention does to them: the events' timestamps are long past.
      admin.deleteRecords(Map.of(new TopicPartition(topics.bid(), 1),
          RecordsToDelete.beforeOffset(3))).all().get();
    }
    assertThatThrownBy(() -> NexmarkLoader.ensure(broker.bootstrapServers(), config, topics))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("topic " + topics.bid() + " partition 1 starts at offset 3")
        .hasMessageContaining("retention");
  }
}
