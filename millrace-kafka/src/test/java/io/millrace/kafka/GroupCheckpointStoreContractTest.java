package io.millrace.kafka;

import io.millrace.api.StreamPartition;
import io.millrace.core.checkpoint.CheckpointStoreContract;
import io.millrace.kafka.checkpoint.GroupCheckpointStore;
import io.millrace.spi.checkpoint.CheckpointStore;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;

/**
 * The checkpoint store contract on a Kafka group's committed offsets (what {@code
 * job.coordinator=kafka} checkpoints in), on the test broker: inputs {@code a} and {@code b} are
 * topics of their own per test, and each container commits in a transaction of its own, as a
 * member of a group that has no other member (its generation unknown, as a member's before it
 * joins).
 */
class GroupCheckpointStoreContractTest extends CheckpointStoreContract {
  private final String topicA = KafkaTestSupport.topic("group-contract-a");
  private final String topicB = KafkaTestSupport.topic("group-contract-b");
  private final String group = "group-contract-" + topicA;
  private int partitions = -1;
  /** A consumer of the group that never joins it: its metadata is a member's before a join. */
  private KafkaConsumer<byte[], byte[]> member;

  @AfterEach
  void closeMember() {
    if (member != null) {
      member.close();
    }
  }

  @Override
  protected CheckpointStore openStore(int partitions) {
    String bootstrap = TestBroker.shared().bootstrapServers();
    if (this.partitions < 0) {
      this.partitions = partitions;
      TestBroker.createTopic(bootstrap, topicA, partitions);
      TestBroker.createTopic(bootstrap, topicB, partitions);
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("group.id", group);
      member = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    Map<String, String> c = KafkaTestSupport.job(bootstrap, group, UpperCaseTask.class, topicA,
        null, "unused");
    return new GroupCheckpointStore(KafkaTestSupport.settings(c), group,
        Map.of(topicA, "a", topicB, "b"), Map.of(topicA, partitions, topicB, partitions),
        container -> member.groupMetadata(),
        container -> "millrace-contract-" + group + "-c" + container, null);
  }

  @Override
  protected String system() {
    return "kafka";
  }

  /** Offset metadata of another application's on the partition. */
  @Override
  protected void damage(StreamPartition partition) throws Exception {
    String topic = partition.stream().equals("a") ? topicA : topicB;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers",
        TestBroker.shared().bootstrapServers()))) {
      admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic,
          partition.partition()), new OffsetAndMetadata(7, "{\"not\": \"millrace\"}")))
          .all().get(60, TimeUnit.SECONDS);
    }
  }

  @Override
  protected String where() {
    return group;
  }
}
