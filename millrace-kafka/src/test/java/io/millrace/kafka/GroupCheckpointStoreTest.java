package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.topic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.kafka.checkpoint.GroupCheckpointStore;
import io.millrace.core.store.ChangelogPartitions;
import io.millrace.core.testing.Await;
import io.millrace.kafka.dev.DevBroker;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Reading a group's checkpoint: offsets with the stores' changelog offsets, whole or in part. */
class GroupCheckpointStoreTest {
  @Test
  void readsEveryPartitionOrOnlyTheTasksAskedFor() throws Exception {
    DevBroker broker = TestBroker.shared();
    String in = topic("group-ckpt-in");
    String group = "group-ckpt-" + in;
    TestBroker.createTopic(broker.bootstrapServers(), in, 3);
    int partitions = 3;
    commit(broker, group, Map.of(
        new TopicPartition(in, 0), new OffsetAndMetadata(11, "millrace 1\ncounts\t40\n"),
        new TopicPartition(in, 2), new OffsetAndMetadata(31, "millrace 1\ncounts\t90\n")));
    try (GroupCheckpointStore store = store(broker, group, in, partitions)) {
      StreamPartition in0 = new StreamPartition("kafka", "in", 0);
      StreamPartition in2 = new StreamPartition("kafka", "in", 2);
      StreamPartition log0 = new StreamPartition("kafka", "changelog:counts", 0);
      StreamPartition log2 = new StreamPartition("kafka", "changelog:counts", 2);
      assertThat(store.read()).containsExactlyInAnyOrderEntriesOf(
          Map.of(in0, 10L, log0, 40L, in2, 30L, log2, 90L));
      assertThat(store.read(Set.of(2))).containsExactlyInAnyOrderEntriesOf(
          Map.of(in2, 30L, log2, 90L));
      assertThat(store.read(Set.of(1))).isEmpty(); // nothing committed for task 1
    }
  }

  /**
   * Under Samza's changelog order (a Samza job moved here) task 10 of 12 keeps its stores in
   * changelog partition 2 and task 2 in partition 4: each task's changelog offsets travel with its
   * own input partition, and come back under its own changelog partition, whichever container
   * holds it (keyed by number, task 2's input would carry task 10's changelog offset, and a
   * container holding task 10 but not task 2 would drop it).
   */
  @Test
  void underSamzasChangelogOrderEachTasksChangelogOffsetsTravelWithItsOwnInput()
      throws Exception {
    DevBroker broker = TestBroker.shared();
    String in = topic("group-ckpt-samza-order");
    String group = "group-ckpt-" + in;
    int tasks = 12;
    TestBroker.createTopic(broker.bootstrapServers(), in, tasks);
    ChangelogPartitions order = ChangelogPartitions.samza(tasks);
    assertThat(order.of(10)).isEqualTo(2);
    assertThat(order.of(2)).isEqualTo(4);
    Map<String, String> c = KafkaTestSupport.job(broker.bootstrapServers(), group,
        UpperCaseTask.class, in, null, "unused");
    // A member that never joins: its metadata commits offsets without a generation to check.
    try (KafkaConsumer<byte[], byte[]> unjoined = member(broker, group);
        GroupCheckpointStore store = new GroupCheckpointStore(KafkaTestSupport.settings(c),
            group, Map.of(in, "in"), Map.of(in, tasks), container -> unjoined.groupMetadata(),
            container -> "millrace-test-" + group + "-" + container, null, order::of)) {
      StreamPartition in10 = new StreamPartition("kafka", "in", 10);
      StreamPartition log10 = new StreamPartition("kafka", "changelog:counts", order.of(10));
      StreamPartition in2 = new StreamPartition("kafka", "in", 2);
      StreamPartition log2 = new StreamPartition("kafka", "changelog:counts", order.of(2));
      // A container holding task 10 alone, then one holding both (in any order of partitions).
      store.writer(0, java.util.List.of(log10, in10), java.util.List.of())
          .write(new long[] {70, 9});
      assertThat(store.read(Set.of(10))).containsExactlyInAnyOrderEntriesOf(
          Map.of(in10, 9L, log10, 70L));
      store.writer(1, java.util.List.of(in2, in10, log10, log2), java.util.List.of())
          .write(new long[] {3, 19, 71, 50});
      assertThat(store.read()).containsExactlyInAnyOrderEntriesOf(
          Map.of(in10, 19L, log10, 71L, in2, 3L, log2, 50L));
    }
    // As the group keeps them: each input partition's metadata holds its own task's offset.
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      assertThat(committed.get(new TopicPartition(in, 10)).metadata())
          .isEqualTo("millrace 1\ncounts\t71\n");
      assertThat(committed.get(new TopicPartition(in, 2)).metadata())
          .isEqualTo("millrace 1\ncounts\t50\n");
    }
  }

  @Test
  void offsetsAnotherApplicationCommittedAreAnErrorNamingTheGroupAndPartition() throws Exception {
    DevBroker broker = TestBroker.shared();
    String in = topic("group-ckpt-foreign");
    String group = "group-ckpt-" + in;
    TestBroker.createTopic(broker.bootstrapServers(), in, 2);
    commit(broker, group, Map.of(new TopicPartition(in, 1), new OffsetAndMetadata(5, "{json}")));
    try (GroupCheckpointStore store = store(broker, group, in, 2)) {
      assertThat(store.read(Set.of(0))).isEmpty(); // the foreign offset is not read for task 0
      assertThatThrownBy(() -> store.read(Set.of(1))).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(group).hasMessageContaining(in + "-1")
          .hasMessageContaining("job.coordinator.group.id");
    }
  }

  @Test
  void aWriteCommitsInTheContainersTransactionWhicheverProducersItHas() throws Exception {
    DevBroker broker = TestBroker.shared();
    String in = topic("group-ckpt-covers");
    String group = "group-ckpt-" + in;
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    // An output on another system (a file, another cluster): not in the group's transaction.
    io.millrace.spi.system.SystemProducer elsewhere = new io.millrace.spi.system.SystemProducer() {
      @Override
      public void register(int index, io.millrace.spi.system.StreamSpec stream, int count) {}

      @Override
      public void start() {}

      @Override
      public void send(int index, int partition, Object key, Object value, long timestamp) {}

      @Override
      public void flush() {}

      @Override
      public void stop() {}
    };
    try (GroupCheckpointStore store = store(broker, group, in, 1,
        container -> "millrace-test-" + group + "-" + container)) {
      java.util.List<StreamPartition> layout = java.util.List.of(new StreamPartition("kafka",
          "in", 0));
      // Whether it also covers what was sent is the runtime's to see: whether every producer of
      // the container sends in that transaction (Committer; an output elsewhere does not).
      assertThat(store.writer(0, layout, java.util.List.of()).transaction())
          .as("a container that sends nothing: the store's own transaction").isNotNull();
      assertThat(store.writer(1, layout, java.util.List.of(elsewhere)).transaction())
          .as("beside an output elsewhere: still a transaction, which that output is not in")
          .isNotNull().isNotSameAs(elsewhere.transaction());
    }
  }

  @Test
  void aReadHeldUpByAPendingCommitDoesNotHoldUpALoopTakingItsWriter() throws Exception {
    DevBroker broker = TestBroker.shared();
    String in = topic("group-ckpt-pending");
    String group = "group-ckpt-" + in;
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("transactional.id", "pending-" + group);
    p.put("key.serializer", ByteArraySerializer.class);
    p.put("value.serializer", ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> other = new KafkaProducer<>(p);
        KafkaConsumer<byte[], byte[]> otherMember = member(broker, group);
        GroupCheckpointStore store = store(broker, group, in, 1,
            container -> "millrace-test-" + group + "-" + container, "600000")) {
      // Another member's commit, pending in its open transaction: a read of the group's stable
      // offsets waits for it (on a container's restore thread, taking a task).
      other.initTransactions();
      other.beginTransaction();
      other.sendOffsetsToTransaction(Map.of(new TopicPartition(in, 0), new OffsetAndMetadata(7)),
          otherMember.groupMetadata());
      CompletableFuture<Map<StreamPartition, Long>> read = new CompletableFuture<>();
      Thread reader = new Thread(() -> {
        try {
          read.complete(store.read(Set.of(0)));
        } catch (RuntimeException e) {
          read.completeExceptionally(e);
        }
      }, "restore-thread-read");
      reader.start();
      KafkaTestSupport.await(Duration.ofSeconds(120), "the read waiting on the broker",
          () -> Arrays.stream(reader.getStackTrace())
              .anyMatch(f -> f.getMethodName().equals("committed")));

      // Meanwhile a loop lays its checkpoint out (after a revoke, or as other tasks start). Held
      // up behind the read, it would come only once the read ended: the read waits for the
      // pending commit until the test aborts it (its own time-out is far beyond the deadline).
      CompletableFuture<Object> writer = CompletableFuture.supplyAsync(() -> store.writer(0,
          java.util.List.of(new StreamPartition("kafka", "in", 0)), java.util.List.of()));
      assertThat(writer.get(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .as("the loop's writer").isNotNull();
      assertThat(read.isDone()).as("the read still waits for the pending commit: the writer was "
          + "not held up behind it").isFalse();

      other.abortTransaction();
      assertThat(read.get(Await.DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("nothing committed")
          .isEmpty();
    }
  }

  /** A consumer of the group that never joins it (no generation: its commits are not fenced). */
  private static KafkaConsumer<byte[], byte[]> member(DevBroker broker, String group) {
    Properties member = new Properties();
    member.put("bootstrap.servers", broker.bootstrapServers());
    member.put("group.id", group);
    member.put("key.deserializer", ByteArrayDeserializer.class);
    member.put("value.deserializer", ByteArrayDeserializer.class);
    return new KafkaConsumer<>(member);
  }

  private static void commit(DevBroker broker, String group,
      Map<TopicPartition, OffsetAndMetadata> offsets) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin.alterConsumerGroupOffsets(group, offsets).all().get(30, TimeUnit.SECONDS);
    }
  }

  private static GroupCheckpointStore store(DevBroker broker, String group, String in,
      int partitions) {
    return store(broker, group, in, partitions, container -> null);
  }

  /** A store whose containers commit with these transactional ids (for their writers). */
  private static GroupCheckpointStore store(DevBroker broker, String group, String in,
      int partitions, java.util.function.IntFunction<String> transactionalIds) {
    return store(broker, group, in, partitions, transactionalIds, "20000");
  }

  /** As above, with the Kafka system's start-up time-out (how long a read waits). */
  private static GroupCheckpointStore store(DevBroker broker, String group, String in,
      int partitions, java.util.function.IntFunction<String> transactionalIds,
      String startupTimeoutMs) {
    Map<String, String> c = KafkaTestSupport.job(broker.bootstrapServers(), group,
        UpperCaseTask.class, in, null, "unused");
    c.put("systems.kafka.startup.timeout.ms", startupTimeoutMs);
    return new GroupCheckpointStore(KafkaTestSupport.settings(c), group, Map.of(in, "in"),
        Map.of(in, partitions), container -> null, transactionalIds, null);
  }
}
