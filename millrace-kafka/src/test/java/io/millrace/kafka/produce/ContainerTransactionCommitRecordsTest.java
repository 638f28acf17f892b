package io.millrace.kafka.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.checkpoint.CheckpointException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The records of a commit itself (its checkpoint) are acknowledged before the commit is sent
 * (one class; the producer is Kafka's {@link MockProducer}, made to leave records unacknowledged
 * when it flushes, as the real one once committed without one): a late one is waited for, one
 * that never comes aborts the transaction instead of committing it without its checkpoint.
 */
class ContainerTransactionCommitRecordsTest {
  private static final Callback NONE = (metadata, error) -> {};

  /**
   * A producer whose flushes leave the sends waiting (the ones of {@link #commitTransaction}
   * too), until {@link #acknowledge} or {@link #acknowledgeLater}.
   */
  private static final class FlushesTooEarly extends MockProducer<byte[], byte[]> {
    private boolean acknowledging;

    FlushesTooEarly() {
      super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public synchronized void flush() {
      if (acknowledging) {
        super.flush();
      }
    }

    /** Acknowledges every send waiting now, and those of later flushes. */
    synchronized void acknowledge() {
      acknowledging = true;
      super.flush();
    }

    /** As {@link #acknowledge}, from another thread after {@code ms}: a slow broker. */
    void acknowledgeLater(long ms) {
      CompletableFuture.runAsync(this::acknowledge,
          CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
    }
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
    return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> committed(MockProducer<byte[], byte[]> producer) {
    return producer.history().stream()
        .map(r -> r.topic() + ":" + new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  private static ContainerTransaction transaction(MockProducer<byte[], byte[]> producer,
      long lateRecordWaitMs) {
    return new ContainerTransaction(producer, "tx", "the test", "kafka", lateRecordWaitMs);
  }

  @Test
  void aCommitRecordIsAcknowledgedWhenItsCommitReturns() throws Exception {
    FlushesTooEarly producer = new FlushesTooEarly();
    producer.acknowledge();
    ContainerTransaction transaction = transaction(producer, 50);
    transaction.send(record("out", "a"), NONE);
    Future<RecordMetadata> checkpoint = transaction.send(record("checkpoints", "c1"));

    transaction.commit(Map.of(), null);

    assertThat(checkpoint.isDone()).isTrue();
    assertThat(checkpoint.get().topic()).isEqualTo("checkpoints");
    assertThat(producer.commitCount()).isEqualTo(1);
    assertThat(committed(producer)).containsExactly("out:a", "checkpoints:c1");
  }

  @Test
  void aCommitRecordTheFlushLeftUnacknowledgedIsWaitedForBeforeTheCommit() throws Exception {
    FlushesTooEarly producer = new FlushesTooEarly();
    ContainerTransaction transaction = transaction(producer, 60_000);
    transaction.send(record("out", "a"), NONE);
    Future<RecordMetadata> checkpoint = transaction.send(record("checkpoints", "c1"));
    producer.acknowledgeLater(100);

    transaction.commit(Map.of(), null);

    assertThat(checkpoint.isDone()).as("acknowledged before the commit").isTrue();
    assertThat(producer.commitCount()).isEqualTo(1);
    assertThat(committed(producer)).containsExactly("out:a", "checkpoints:c1");
  }

  @Test
  void aCommitRecordNeverAcknowledgedAbortsTheTransactionAndDropsTheHeldSends() {
    FlushesTooEarly producer = new FlushesTooEarly();
    ContainerTransaction transaction = transaction(producer, 50);
    transaction.send(record("out", "a"), NONE);
    transaction.holdSends(); // this thread is the loop: its sends from here on follow the commit
    assertThat(transaction.send(record("out", "b"), NONE)).as("held").isNull();
    transaction.send(record("checkpoints", "c1"));

    assertThatThrownBy(() -> transaction.commit(Map.of(), null))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("a checkpoint record of transaction tx was still not acknowledged")
        .hasMessageContaining("aborted rather than committed without its checkpoint");
    transaction.dropHeldSends();

    assertThat(producer.transactionAborted()).isTrue();
    assertThat(producer.commitCount()).isZero();
    assertThat(committed(producer)).isEmpty();
    assertThat(transaction.isOpen()).isFalse();
  }

  @Test
  void aCommitWithNoRecordOfItsOwnCommitsWhatWasSent() {
    FlushesTooEarly producer = new FlushesTooEarly();
    producer.acknowledge();
    ContainerTransaction transaction = transaction(producer, 50);
    transaction.send(record("out", "a"), NONE);

    transaction.commit(Map.of(), null);

    assertThat(producer.commitCount()).isEqualTo(1);
    assertThat(committed(producer)).containsExactly("out:a");
  }
}
