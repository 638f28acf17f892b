package io.millrace.kafka;

import io.millrace.kafka.settings.KafkaSettings;
import static io.millrace.kafka.KafkaTestSupport.readAll;
import static io.millrace.kafka.KafkaTestSupport.topic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.system.StreamSpec;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.testing.TestSystemContext;
import io.millrace.kafka.produce.ContainerTransaction;
import io.millrace.kafka.produce.KafkaSystemProducer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A transaction that commits beside the loop (real broker): the loop's sends from the moment its
 * offsets were taken are held, then follow the commit in order; another thread's sends (the store
 * flusher's changelog records) go into the committing transaction; an abort drops what was held.
 */
class ContainerTransactionTest {
  private static final Callback NONE = (metadata, error) -> {};

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap, String id) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("transactional.id", id);
    p.put("linger.ms", "5");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
    return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> committed(String topic) {
    return readAll(bootstrap(), topic, true).stream().map(ConsumerRecord::value).toList();
  }

  private static String bootstrap() {
    return TestBroker.shared().bootstrapServers();
  }

  /** A new topic of one partition on the shared broker. */
  private static String newTopic(String prefix) {
    String name = topic(prefix);
    TestBroker.createTopic(bootstrap(), name, 1);
    return name;
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theLoopsSendsWhileACommitRunsBesideItFollowTheCommitInOrder() throws Exception {
    String out = newTopic("held-out");
    String changelog = newTopic("held-changelog");
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(),
        topic("held-tx"))) {
      ContainerTransaction transaction = new ContainerTransaction(producer, "held", "test");
      for (int i = 0; i < 10; i++) {
        assertThat(transaction.send(record(out, "a" + i), NONE)).isNotNull();
      }
      transaction.holdSends(); // this thread is the loop: its offsets were taken here
      for (int i = 0; i < 10; i++) {
        assertThat(transaction.send(record(out, "b" + i), NONE)).as("held").isNull();
      }
      AtomicInteger acknowledged = new AtomicInteger();
      // The flusher's changelog records of the commit pass, and the commit runs beside the loop.
      CompletableFuture.runAsync(() -> {
        assertThat(transaction.send(record(changelog, "c0"), NONE)).isNotNull();
        transaction.commit(Map.of(), null);
      }).get(60, TimeUnit.SECONDS);
      transaction.send(record(out, "b10"), (metadata, error) -> acknowledged.incrementAndGet());

      assertThat(committed(out))
          .as("the commit held what came before the hold, and nothing after")
          .containsExactly("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9");
      assertThat(committed(changelog)).containsExactly("c0");

      transaction.commit(Map.of(), null);
      assertThat(acknowledged).hasValue(1);
      List<String> all = committed(out);
      assertThat(all.subList(10, all.size())).as("the held sends, in order, before later ones")
          .containsExactly("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10");
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void sendsHeldBehindACommitThatFailsAreDroppedWithWhatItAborted() throws Exception {
    String out = newTopic("held-aborted");
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(),
        topic("held-abort-tx"))) {
      ContainerTransaction transaction = new ContainerTransaction(producer, "held", "test");
      transaction.send(record(out, "kept"), NONE);
      transaction.commit(Map.of(), null);

      transaction.send(record(out, "aborted"), NONE);
      transaction.holdSends();
      assertThat(transaction.send(record(out, "held"), NONE)).isNull();
      CompletableFuture.runAsync(transaction::abort).get(60, TimeUnit.SECONDS);
      assertThat(transaction.send(record(out, "after"), NONE)).as("no longer held").isNotNull();
      transaction.commit(Map.of(), null);

      assertThat(committed(out)).containsExactly("kept", "after");
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void afterACommitBesideTheLoopFailedTheLoopsSendsAreDroppedUntilItLearnsOfIt()
      throws Exception {
    String out = newTopic("held-failed");
    String id = topic("held-failed-tx");
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(), id)) {
      ContainerTransaction transaction = new ContainerTransaction(producer, id, "test");
      transaction.send(record(out, "before"), NONE);
      transaction.holdSends();
      assertThat(transaction.send(record(out, "held"), NONE)).isNull();
      // Another process takes the transactional id over: this one's commit is fenced.
      try (KafkaProducer<byte[], byte[]> other = producer(bootstrap(), id)) {
        new ContainerTransaction(other, id, "test");
        assertThat(CompletableFuture.runAsync(() -> transaction.commit(Map.of(), null)))
            .failsWithin(60, TimeUnit.SECONDS).withThrowableOfType(
                java.util.concurrent.ExecutionException.class)
            .withMessageContaining(id); // fenced, or aborted by the broker
      }
      assertThat(transaction.send(record(out, "after the failure"), NONE))
          .as("dropped: it follows what the failed commit aborted").isNull();
      transaction.dropHeldSends(); // the loop learnt of the failure
    }
    assertThat(committed(out)).isEmpty();
  }

  /**
   * Where the group refuses a commit's offsets (this member's generation is gone), the commit
   * says so (the fence: its tasks are lost, and it rejoins), and the producer fails the records
   * still waiting in the transaction with the group's error as it aborts them, when it gets to
   * them. That is no output failure of any later send, flush or stop (a zombie of scale-out's
   * fencing test died so), whenever the producer reports it: the commit already said everything.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void recordsAbortedWithOffsetsTheGroupRefusedFailTheCommitAndNoSendAfterIt() throws Exception {
    String out = newTopic("refused-out");
    // A long linger: the records are still waiting when the offsets are refused.
    KafkaSystemProducer producer = lingeringProducer(topic("refused-job"), out);
    Throwable failed = null;
    try {
      producer.send(0, 0, null, "aborted", -1);
      ConsumerGroupMetadata gone = metadataOfAMemberThatLeft(out);
      assertThatThrownBy(() -> producer.transaction().commit(
          Map.of(new TopicPartition(out, 0), new OffsetAndMetadata(1)), gone))
          .isInstanceOf(CommitFencedException.class);
      // The loop may send before it learns of the commit's failure: no output failure.
      producer.send(0, 0, null, "next", -1);
      producer.abandon(); // the tasks are lost: the loop drops what is uncommitted
      producer.send(0, 0, null, "after", -1);
      producer.transaction().commit(Map.of(), null);
      producer.flush();
    } catch (Throwable t) {
      failed = t;
      throw t;
    } finally {
      stopAfter(producer, failed);
    }
    assertThat(committed(out)).containsExactly("after");
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aSendAfterTheCommitFoundTheProducerFencedThrowsTheFenceNotAMessagesFailure()
      throws Exception {
    String out = newTopic("fenced-out");
    String id = topic("fenced-id");
    KafkaProducer<byte[], byte[]> zombieProducer = producer(bootstrap(), id);
    ContainerTransaction zombie = new ContainerTransaction(zombieProducer, id, "the test broker");
    KafkaProducer<byte[], byte[]> successor = producer(bootstrap(), id);
    try {
      zombie.send(record(out, "before"), NONE);
      successor.initTransactions(); // the same id starts elsewhere: the zombie is fenced
      assertThatThrownBy(() -> zombie.commit(Map.of(), null)).as("the commit finds the fence")
          .hasMessageContaining("this process is fenced");
      // The loop may send before it learns of that commit's failure (the commit runs beside it):
      // the send must throw the fence (the container's tasks are lost), never a failure the
      // task's error policy would charge to the message being processed.
      assertThatThrownBy(() -> zombie.send(record(out, "after"), NONE))
          .isInstanceOf(CommitFencedException.class)
          .hasMessageContaining("this process is fenced");
    } finally {
      zombieProducer.close(java.time.Duration.ZERO);
      successor.close();
    }
    assertThat(committed(out)).as("nothing of the fenced transaction is visible").isEmpty();
  }

  /** The group metadata of a member that joined a group and left it: the group refuses it. */
  private static ConsumerGroupMetadata metadataOfAMemberThatLeft(String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap());
    p.put("group.id", topic("refused-group"));
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (consumer.assignment().isEmpty()) {
        assertThat(System.nanoTime()).as("joined the group in time").isLessThan(deadline);
        consumer.poll(java.time.Duration.ofMillis(100));
      }
      return consumer.groupMetadata();
    } // closing leaves the group
  }

  /**
   * A started exactly-once producer of job {@code job} writing stream "out" to {@code out}, whose
   * records wait a minute before they are sent unless something flushes them.
   */
  private static KafkaSystemProducer lingeringProducer(String job, String out) {
    Map<String, String> jobConfig = Map.of("job.name", job,
        "task.processing.guarantee", "exactly-once", "task.checkpoint.system", "kafka");
    Map<String, String> systemConfig = Map.of("bootstrap.servers", bootstrap(),
        "producer.linger.ms", "60000");
    KafkaSystemProducer producer = new KafkaSystemProducer(new TestSystemContext("kafka", job, 0,
        systemConfig, jobConfig, new DefaultMetricsRegistry(false)),
        KafkaSettings.of("kafka", systemConfig));
    producer.register(0, new StreamSpec("out", out, new StringSerde(), new StringSerde()), 1);
    producer.start();
    return producer;
  }

  /**
   * Stops the producer; if the test failed already, a failure of the stop is added to that one
   * instead of hiding it.
   */
  private static void stopAfter(KafkaSystemProducer producer, Throwable failed) {
    try {
      producer.stop();
    } catch (RuntimeException e) {
      if (failed == null) {
        throw e;
      }
      failed.addSuppressed(e);
    }
  }

  /**
   * A producer stopped with a transaction open aborts it: the records that abort fails were
   * dropped on purpose, and the stop does not report them as a failure.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aStopThatAbortsTheOpenTransactionDoesNotReportTheRecordsItDropped() throws Exception {
    String out = newTopic("stop-out");
    // A long linger: the record still waits in the producer when the stop aborts it.
    KafkaSystemProducer producer = lingeringProducer(topic("stop-job"), out);
    producer.send(0, 0, null, "committed", -1);
    producer.transaction().commit(Map.of(), null);
    producer.send(0, 0, null, "dropped", -1);
    producer.stop();
    assertThat(committed(out)).containsExactly("committed");
  }

  /**
   * A container that lost its tasks abandons what it sent since its last commit: the abort fails
   * the records still waiting, and that is no failure of the next transaction's sends.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void recordsAnAbandonedTransactionDroppedDoNotFailTheSendsAfterIt() throws Exception {
    String out = newTopic("abandon-out");
    KafkaSystemProducer producer = lingeringProducer(topic("abandon-job"), out);
    Throwable failed = null;
    try {
      producer.send(0, 0, null, "abandoned", -1);
      producer.abandon();
      producer.send(0, 0, null, "after", -1);
      producer.transaction().commit(Map.of(), null);
      producer.flush();
    } catch (Throwable t) {
      failed = t;
      throw t;
    } finally {
      stopAfter(producer, failed);
    }
    assertThat(committed(out)).containsExactly("after");
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void manyCommitsBesideAThreadThatNeverStopsSendingLoseNoneAndKeepTheirOrder()
      throws Exception {
    String out = newTopic("held-stress");
    int sends = 20_000;
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap(),
        topic("held-stress-tx"))) {
      ContainerTransaction transaction = new ContainerTransaction(producer, "held", "test");
      java.util.concurrent.ExecutorService committer =
          java.util.concurrent.Executors.newSingleThreadExecutor();
      try {
        CompletableFuture<Void> commit = CompletableFuture.completedFuture(null);
        int commits = 0;
        for (int i = 0; i < sends; i++) {
          transaction.send(record(out, Integer.toString(i)), NONE);
          if (i % 1_000 == 250) {
            commit.get(60, TimeUnit.SECONDS); // one at a time, as the committer does
            transaction.holdSends();
            commit = CompletableFuture.runAsync(() -> transaction.commit(Map.of(), null),
                committer);
            commits++;
          }
        }
        commit.get(60, TimeUnit.SECONDS);
        transaction.commit(Map.of(), null);
        assertThat(commits).isEqualTo(sends / 1_000);
      } finally {
        committer.shutdown();
      }
    }
    List<String> all = committed(out);
    assertThat(all).hasSize(sends);
    for (int i = 0; i < sends; i++) {
      assertThat(all.get(i)).isEqualTo(Integer.toString(i));
    }
  }
}
