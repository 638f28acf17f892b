package io.millrace.kafka.produce;

import io.millrace.api.checkpoint.CheckpointException;
import io.millrace.api.checkpoint.CommitFencedException;
import io.millrace.api.system.SystemProducer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;

/**
 * The transaction of one container (under {@code job.coordinator=kafka}, or under exactly-once):
 * everything the container sends to the cluster between two commits (outputs, changelog records)
 * and the commit's checkpoint (the group's offsets for the container's inputs, or the records of
 * the job's checkpoint topic) become visible together, or not at all.
 *
 * <p>The fence is Kafka's (KIP-447): the offsets go to the group coordinator with the member's
 * group metadata, which refuses them if the member's generation is not the group's any more (it
 * was paused or cut off past its session timeout, and the group moved its tasks). The transaction
 * is then aborted, and {@link CommitFencedException} tells the container it lost its tasks.
 *
 * <p>A transaction opens at the first send after a commit ({@link #beforeSend}), so a container
 * with nothing to send, or one that is stopping, holds none open.
 *
 * <p>Threading: {@link #beforeSend} from any thread of the container that sends; {@link #commit}
 * and {@link #abort} on the loop thread, when no send is in progress (the commit protocol drains
 * the store flusher first).
 */
public final class ContainerTransaction {
  private final KafkaProducer<byte[], byte[]> producer;
  private final String transactionalId;
  /** Whether a transaction is open: read on every send, so volatile (one read, no lock). */
  private volatile boolean open;

  /**
   * Wraps a producer created with a {@code transactional.id}; initializes its transactions.
   *
   * @param where the cluster, for messages: the system's name, its servers and its key prefix
   */
  public ContainerTransaction(KafkaProducer<byte[], byte[]> producer, String transactionalId,
      String where) {
    this.producer = producer;
    this.transactionalId = transactionalId;
    try {
      // Bumps the epoch of this transactional id: a previous incarnation's open transaction (the
      // same static instance, restarted) is aborted now, not at its time-out.
      producer.initTransactions();
    } catch (ProducerFencedException e) {
      throw duplicate(e);
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new CheckpointException("cannot reach " + where + " to begin the container's "
          + "transactions (" + transactionalId + ") within its producer's max.block.ms: is the "
          + "broker reachable, and is its transaction coordinator up?", e);
    }
  }

  /**
   * Whether this transaction holds everything these producers (a container's) send: not where an
   * output is on another cluster (allowed under at-least-once), whose producer is not in it.
   */
  public boolean holdsEverySendOf(List<SystemProducer> producers) {
    return producers.stream().allMatch(producer ->
        producer instanceof KafkaSystemProducer kafka && kafka.transaction() == this);
  }

  /** Opens a transaction if none is: before each send. Any sending thread. */
  public void beforeSend() {
    if (!open) {
      begin();
    }
  }

  /**
   * Sends a record of the commit itself (a checkpoint) in the transaction, opening it if needed.
   * Loop thread, during a commit.
   */
  public java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
      org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> record) {
    beforeSend();
    return producer.send(record);
  }

  private synchronized void begin() {
    if (!open) {
      producer.beginTransaction(); // local: no request to the broker
      open = true;
    }
  }

  /**
   * Commits the transaction with the group's offsets, fenced by the member's group metadata,
   * then opens the next one.
   *
   * @param offsets the input partitions' next offsets, with metadata; empty: no offsets to commit
   *     (the checkpoint is records sent in the transaction, or nothing was processed)
   * @param group the member's group metadata, or null without offsets
   * @throws CommitFencedException if the group refused the offsets: the transaction is aborted
   */
  public void commit(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
    if (!open && offsets.isEmpty()) {
      return; // nothing sent, nothing processed: nothing to commit
    }
    try {
      begin();
      if (!offsets.isEmpty()) {
        producer.sendOffsetsToTransaction(offsets, group);
      }
      producer.commitTransaction();
      open = false;
    } catch (CommitFailedException | FencedInstanceIdException e) {
      abortQuietly(e);
      throw new CommitFencedException("commit refused by group " + group.groupId()
          + " (generation " + group.generationId() + " of member " + group.memberId()
          + " is not the group's any more): another member owns the tasks", e);
    } catch (InvalidProducerEpochException | InvalidTxnStateException
        | TransactionAbortedException e) {
      abortQuietly(e);
      throw abortedByBroker(e);
    } catch (ProducerFencedException e) {
      open = false;
      throw duplicate(e);
    } catch (KafkaException e) {
      abortQuietly(e);
      throw new CheckpointException("the commit's transaction (" + transactionalId
          + ") failed and was aborted: " + e, e);
    }
  }

  /**
   * Aborts what was sent since the last commit.
   *
   * @throws CheckpointException if another producer took the transactional id over (what was
   *     sent is aborted all the same, and this producer cannot go on)
   */
  public synchronized void abort() {
    if (open) {
      open = false;
      try {
        producer.abortTransaction();
      } catch (ProducerFencedException e) {
        throw duplicate(e);
      }
    }
  }

  private void abortQuietly(Exception cause) {
    try {
      abort();
    } catch (RuntimeException e) { // KafkaException, or a fence (CheckpointException)
      cause.addSuppressed(e); // the producer cannot go on: the caller's failure says why
    }
  }

  /**
   * Whether a failure means the broker aborted the container's transaction itself (it stayed
   * open past {@code transaction.timeout.ms}, as when the process was paused): what it sent since
   * the last commit is gone, and its tasks are lost as if it had been fenced.
   */
  public static boolean abortedByBroker(Throwable failure) {
    return failure instanceof InvalidProducerEpochException
        || failure instanceof InvalidTxnStateException
        || failure instanceof TransactionAbortedException;
  }

  private CommitFencedException abortedByBroker(Exception e) {
    return new CommitFencedException("the broker aborted transaction " + transactionalId
        + " (it stayed open longer than its transaction.timeout.ms, or another producer with "
        + "its id, of a process that took over, fenced it: was this process paused?)", e);
  }

  private CheckpointException duplicate(Exception e) {
    return new CheckpointException("transactional id " + transactionalId + " was taken over by "
        + "another producer, so this process is fenced and what it sent since its last commit is "
        + "aborted: another process of the job took over this container's tasks (a restart under "
        + "job.coordinator=local while this one was paused or cut off, or, under "
        + "job.coordinator=kafka, two processes with the same job.instance.id)", e);
  }
}
