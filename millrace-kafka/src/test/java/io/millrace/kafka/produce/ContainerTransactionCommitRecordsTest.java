package io.millrace.kafka.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.checkpoint.CheckpointException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The records of a commit itself (its checkpoint) are acknowledged when the commit returns, even
 * where Kafka's producer committed without them (one class; the producer is Kafka's
 * {@link MockProducer}, made to commit before a record is acknowledged, as a CI run saw the real
 * one do once): they are written again in a transaction of their own, before the loop's held
 * sends, or the commit fails.
 */
class ContainerTransactionCommitRecordsTest {
  private static final Callback NONE = (metadata, error) -> {};

  /**
   * A producer whose next {@code skippedFlushes} commits return without completing the sends
   * still waiting (as {@link MockProducer#commitTransaction} does through {@link #flush}).
   */
  private static final class CommitsTooEarly extends MockProducer<byte[], byte[]> {
    private int skippedFlushes;

    CommitsTooEarly(int skippedFlushes) {
      super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
      this.skippedFlushes = skippedFlushes;
    }

    @Override
    public synchronized void flush() {
      if (skippedFlushes > 0) {
        skippedFlushes--;
        return;
      }
      super.flush();
    }
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
    return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> committed(MockProducer<byte[], byte[]> producer) {
    return producer.history().stream()
        .map(r -> r.topic() + ":" + new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  private static ContainerTransaction transaction(MockProducer<byte[], byte[]> producer) {
    return new ContainerTransaction(producer, "tx", "the test", "kafka", 50);
  }

  @Test
  void aCommitRecordIsAcknowledgedWhenItsCommitReturns() throws Exception {
    CommitsTooEarly producer = new CommitsTooEarly(0);
    ContainerTransaction transaction = transaction(producer);
    transaction.send(record("out", "a"), NONE);
    Future<RecordMetadata> checkpoint = transaction.send(record("checkpoints", "c1"));

    transaction.commit(Map.of(), null);

    assertThat(checkpoint.get().topic()).isEqualTo("checkpoints");
    assertThat(producer.commitCount()).isEqualTo(1);
    assertThat(committed(producer)).containsExactly("out:a", "checkpoints:c1");
  }

  @Test
  void aCommitRecordTheProducerCommittedWithoutIsWrittenAgainBeforeTheHeldSends()
      throws Exception {
    CommitsTooEarly producer = new CommitsTooEarly(1);
    ContainerTransaction transaction = transaction(producer);
    transaction.send(record("out", "a"), NONE);
    transaction.holdSends(); // this thread is the loop: its sends from here on follow the commit
    assertThat(transaction.send(record("out", "b"), NONE)).as("held").isNull();
    Future<RecordMetadata> checkpoint = CompletableFuture.supplyAsync(() -> {
      Future<RecordMetadata> sent = transaction.send(record("checkpoints", "c1"));
      transaction.commit(Map.of(), null);
      return sent;
    }).get();

    assertThat(checkpoint.isDone()).as("acknowledged once the commit returned").isTrue();
    assertThat(checkpoint.get().topic()).isEqualTo("checkpoints");
    assertThat(producer.commitCount()).as("the commit, then the records' own").isEqualTo(2);
    transaction.sendHeld();
    transaction.commit(Map.of(), null);
    assertThat(committed(producer))
        .containsExactly("out:a", "checkpoints:c1", "checkpoints:c1", "out:b");
  }

  @Test
  void aCommitRecordStillNotAcknowledgedAfterItsSecondCommitFailsTheCommitAndDropsTheHeldSends() {
    CommitsTooEarly producer = new CommitsTooEarly(2);
    ContainerTransaction transaction = transaction(producer);
    transaction.send(record("out", "a"), NONE);
    transaction.holdSends();
    transaction.send(record("out", "b"), NONE);
    Future<RecordMetadata> checkpoint = transaction.send(record("checkpoints", "c1"));

    assertThatThrownBy(() -> transaction.commit(Map.of(), null))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("committed transaction tx twice before its checkpoint record was "
            + "acknowledged")
        .hasMessageContaining("a restart processes their inputs again");
    assertThatThrownBy(checkpoint::get).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(CheckpointException.class);
    transaction.dropHeldSends();
    assertThat(committed(producer)).as("out:b, held behind the failed commit, is not sent")
        .doesNotContain("out:b");
  }

  @Test
  void commitRecordsOfAnAbortedTransactionFailForWhoeverWaitsOnThem() {
    CommitsTooEarly producer = new CommitsTooEarly(0);
    ContainerTransaction transaction = transaction(producer);
    Future<RecordMetadata> checkpoint = transaction.send(record("checkpoints", "c1"));

    transaction.abort();

    assertThatThrownBy(checkpoint::get).isInstanceOf(ExecutionException.class)
        .hasMessageContaining("failed or was aborted");
  }
}
