package io.millrace.kafka.produce;

import io.millrace.api.checkpoint.CheckpointException;
import io.millrace.api.checkpoint.CommitFencedException;
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
 * The transaction of one container under {@code job.coordinator=kafka}: everything the container
 * sends to the group's cluster between two commits (outputs, changelog records) and the commit's
 * checkpoint (the group's offsets for the container's inputs) become visible together, or not at
 * all.
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

  /** Opens a transaction if none is: before each send. Any sending thread. */
  public void beforeSend() {
    if (!open) {
      begin();
    }
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
   *     (and then no fence either: nothing was processed)
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

  /** Aborts what was sent since the last commit. */
  public synchronized void abort() {
    if (open) {
      open = false;
      producer.abortTransaction();
    }
  }

  private void abortQuietly(Exception cause) {
    try {
      abort();
    } catch (KafkaException e) {
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
        + " (it stayed open longer than its transaction.timeout.ms: was the process paused?)", e);
  }

  private CheckpointException duplicate(Exception e) {
    return new CheckpointException("transactional id " + transactionalId + " was taken over by "
        + "another producer: two processes of the job run with the same job.instance.id (each "
        + "needs its own), or this one was replaced after a pause", e);
  }
}
