package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.kafka.checkpoint.KafkaCheckpointStore;
import io.millrace.kafka.dev.DevBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The compacted checkpoint topic: round trip, tasks as keys, and damaged or misconfigured topics. */
class KafkaCheckpointStoreTest {
  private static Map<String, String> config(String job, String topic) {
    DevBroker broker = TestBroker.shared();
    Map<String, String> c = KafkaTestSupport.job(broker.bootstrapServers(), job,
        UpperCaseTask.class, "in", null, "unused");
    c.put("systems.kafka.checkpoint.topic", topic);
    return c;
  }

  @Test
  void offsetsWrittenByTaskAreReadBackAndOnlyMovedTasksAreWrittenAgain() {
    String topic = topic("__checkpoints");
    Map<String, String> c = config("ckpt-roundtrip", topic);
    List<StreamPartition> partitions = List.of(new StreamPartition("kafka", "a", 0),
        new StreamPartition("kafka", "b", 0), new StreamPartition("kafka", "a", 1));
    try (KafkaCheckpointStore store = new KafkaCheckpointStore(
        KafkaTestSupport.settings(c), "ckpt-roundtrip")) {
      CheckpointWriter writer = store.writer(0, partitions);
      writer.write(new long[] {10, 20, CheckpointStore.NONE});
      writer.write(new long[] {11, 20, 5});
      writer.write(new long[] {11, 20, 5}); // nothing moved: no record
      assertThat(store.read()).containsExactlyInAnyOrderEntriesOf(Map.of(
          partitions.get(0), 11L, partitions.get(1), 20L, partitions.get(2), 5L));
    }
    // Task 0 was written twice, task 1 once: three records, never the unchanged third write.
    assertThat(readAll(TestBroker.shared().bootstrapServers(), topic)).hasSize(3);
  }

  @Test
  void aDamagedRecordIsAnErrorNamingItsOffsetAndKey() throws Exception {
    String topic = topic("__checkpoints");
    Map<String, String> c = config("ckpt-damaged", topic);
    new KafkaCheckpointStore(KafkaTestSupport.settings(c), "ckpt-damaged").close();
    try (KafkaProducer<String, String> producer = TestBroker.producer(
        TestBroker.shared().bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, 0, "task-3", "not a checkpoint")).get();
    }

    try (KafkaCheckpointStore store = new KafkaCheckpointStore(
        KafkaTestSupport.settings(c), "ckpt-damaged")) {
      assertThatThrownBy(store::read).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("checkpoint record at topic " + topic + " partition 0 offset 0")
          .hasMessageContaining("(key task-3) is damaged");
    }
  }

  @Test
  void aCheckpointTopicThatIsNotCompactedIsRefused() throws Exception {
    String topic = topic("__checkpoints");
    try (Admin admin = Admin.create(Map.of("bootstrap.servers",
        TestBroker.shared().bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
          .configs(Map.of("cleanup.policy", "delete")))).all().get(30, TimeUnit.SECONDS);
    }
    Map<String, String> c = config("ckpt-delete", topic);

    assertThatThrownBy(() -> new KafkaCheckpointStore(KafkaTestSupport.settings(c),
        "ckpt-delete")).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("cleanup.policy=delete").hasMessageContaining("must be compacted");
  }

  @Test
  void aMissingCheckpointTopicIsCreatedCompacted() throws Exception {
    String topic = topic("__checkpoints");
    Map<String, String> c = config("ckpt-create", topic);
    new KafkaCheckpointStore(KafkaTestSupport.settings(c), "ckpt-create").close();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers",
        TestBroker.shared().bootstrapServers()))) {
      var resource = new org.apache.kafka.common.config.ConfigResource(
          org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topic);
      assertThat(admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
          .get(resource).get("cleanup.policy").value()).isEqualTo("compact");
    }
  }
}
