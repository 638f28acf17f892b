package io.millrace.kafka.produce;

import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.system.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>A commit beside the sends.</b> Kafka refuses a send while a transaction commits, and the
 * commit's round trips (its records acknowledged, the offsets, the end marker) took the loop
 * 20-300 ms of every commit it stood still for. So a commit may {@linkplain #holdSends hold back}
 * the loop thread's sends at the moment its offsets are taken: they wait here, serialized, while
 * the transaction commits on another thread, and are sent after it, into the next, by that
 * thread (in order, before any later send of it). The store flusher's thread is not held: it
 * sends the changelog records of the commit, and parks itself before anything later.
 *
 * <p>Threading: {@link #beforeSend} and {@link #send(ProducerRecord, Callback)} from any thread of
 * the container that sends; {@link #commit} and {@link #abort} on one thread at a time, when no
 * send that belongs in the transaction is in progress (the commit protocol waits for the store
 * flusher to have sent the commit's changelog records first, and holds the loop's sends).
 */
public final class ContainerTransaction implements Transaction {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerTransaction.class);
  private final Producer<byte[], byte[]> producer;
  private final String transactionalId;
  /** The Kafka system (its name in the job) the transaction is on. */
  private final String system;
  /** Whether a transaction is open: read on every send, so volatile (one read, no lock). */
  private volatile boolean open;
  /**
   * The thread whose sends are held while a commit runs beside it, or null: read on every send
   * (one volatile read; the lock only while one is held).
   */
  private volatile Thread holding;
  /** The held sends, in order; guarded by this. */
  private final List<Held> held = new ArrayList<>();
  /** Whether the commit the sends were held for ended: they go next; guarded by this. */
  private boolean committed;
  /**
   * Whether that commit failed: the holding thread's sends are dropped (they follow what it
   * aborted) until it learns of the failure ({@link #dropHeldSends}); guarded by this.
   */
  private boolean failed;
  private long heldBytes;
  /**
   * Held sends past this many bytes make the holding thread wait for the commit instead: a
   * commit that takes long (a slow broker) holds the loop back, not the heap.
   */
  static final long HELD_BYTES_LIMIT = 32L << 20;

  private record Held(ProducerRecord<byte[], byte[]> record, Callback callback) {}

  /**
   * The producer's futures of the records of the commit itself (a checkpoint) sent since the last
   * commit: each must be acknowledged before the commit is sent ({@link #awaitCommitRecords}). The
   * committing thread's only.
   */
  private final List<Future<RecordMetadata>> commitRecords = new ArrayList<>();

  /**
   * How long a commit waits for a record of its own that Kafka's producer had not acknowledged
   * when its flush returned, before it aborts instead: long enough for a slow broker, short for a
   * loop whose sends are held meanwhile.
   */
  static final long LATE_RECORD_WAIT_MS = 5_000;
  private final long lateRecordWaitMs;

  /**
   * Wraps a producer created with a {@code transactional.id}; initializes its transactions.
   *
   * @param where the cluster, for messages: the system's name, its servers and its key prefix
   */
  public ContainerTransaction(Producer<byte[], byte[]> producer, String transactionalId,
      String where) {
    this(producer, transactionalId, where, "");
  }

  /**
   * As {@link #ContainerTransaction(Producer, String, String)}, on the job's Kafka system
   * {@code system}: a checkpoint store on that system commits in it.
   */
  public ContainerTransaction(Producer<byte[], byte[]> producer, String transactionalId,
      String where, String system) {
    this(producer, transactionalId, where, system, LATE_RECORD_WAIT_MS);
  }

  /** As above; a late commit record is waited for {@code lateRecordWaitMs} (tests). */
  ContainerTransaction(Producer<byte[], byte[]> producer, String transactionalId, String where,
      String system, long lateRecordWaitMs) {
    this.lateRecordWaitMs = lateRecordWaitMs;
    this.producer = producer;
    this.transactionalId = transactionalId;
    this.system = system;
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

  /** Whether a transaction is open: something was sent since the last commit (diagnostics). */
  public boolean isOpen() {
    return open;
  }

  /** The Kafka system (its name in the job) the transaction is on. */
  public String system() {
    return system;
  }

  /** Opens a transaction if none is: before each send. Any sending thread. */
  public void beforeSend() {
    if (!open) {
      begin();
    }
  }

  /**
   * Sends a record of the commit itself (a checkpoint) in the transaction, opening it if needed.
   * The committing thread, during a commit.
   *
   * @return where the record was written, complete once {@link #commit} returns
   */
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
    beforeSend();
    Future<RecordMetadata> sent = producer.send(record);
    commitRecords.add(sent);
    return sent;
  }

  /**
   * Sends a record in the open transaction (opening one if none is), or holds it back until the
   * commit running beside this thread has ended ({@link #holdSends}).
   *
   * @return the send's future, or null if it was held (its callback reports it once sent)
   */
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
    Thread h = holding;
    if (h != null && h == Thread.currentThread() && hold(record, callback)) {
      return null;
    }
    try {
      beforeSend();
      return producer.send(record, callback);
    } catch (ProducerFencedException e) {
      // The producer learnt of the fence on an earlier batch: the container's tasks are lost,
      // which no error policy may charge to the message sending now (ErrorHandler).
      open = false;
      throw new CommitFencedException(duplicate(e).getMessage(), e);
    }
  }

  private synchronized boolean hold(ProducerRecord<byte[], byte[]> record, Callback callback) {
    while (holding != null && !committed && heldBytes >= HELD_BYTES_LIMIT) {
      try {
        wait(); // the commit ends (committed or dropped) and wakes this
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for a commit to end", e);
      }
    }
    if (holding == null) {
      return false; // dropped meanwhile: send it now
    }
    if (failed) {
      return true; // the commit failed: dropped with what it aborted, until the loop learns it
    }
    if (sendHeldIfCommitted()) {
      return false; // the commit ended: what was held went first, then this
    }
    held.add(new Held(record, callback));
    heldBytes += size(record.key()) + size(record.value()) + 64; // 64: the record's own fields
    return true;
  }

  private static int size(byte[] bytes) {
    return bytes == null ? 0 : bytes.length;
  }

  /**
   * From now until the next {@link #commit} or {@link #abort} ends, the calling thread's sends
   * are held back: everything it sent before is in the transaction that commit commits, nothing
   * after. Call it where the commit's offsets are taken.
   */
  @Override
  public synchronized void holdSends() {
    sendHeldIfCommitted(); // (the last hold's, if nothing sent them yet)
    holding = Thread.currentThread();
    LOG.debug("{}: sends of {} held (open: {})", transactionalId, holding.getName(), open);
  }

  /**
   * The holding thread, once the commit ended: sends what it held, in order, into the next
   * transaction (its next send does so too). On that thread, not the committing one: the loop
   * goes on sending meanwhile, and two threads feeding one producer only contend.
   */
  @Override
  public void sendHeld() {
    if (holding == Thread.currentThread()) {
      sendHeldIfCommitted();
    }
  }

  /**
   * If the commit the sends were held for ended, sends what was held, in order, and ends the
   * hold; says whether it did.
   */
  private synchronized boolean sendHeldIfCommitted() {
    if (!committed) {
      return false;
    }
    try {
      for (Held h : held) {
        beforeSend();
        producer.send(h.record, h.callback);
      }
    } finally {
      stopHolding();
    }
    return true;
  }

  /** The commit ended: the holding thread sends what it held next ({@link #sendHeld}). */
  private synchronized void committed() {
    if (holding != null) {
      committed = true;
      notifyAll();
    }
  }

  /** Drops what was held (the transaction it would follow aborted: so is it, in effect). */
  private synchronized void stopHolding() {
    if (holding != null && LOG.isDebugEnabled()) {
      LOG.debug("{}: hold of {} ends on {} ({} held, committed: {}, failed: {})", transactionalId,
          holding.getName(), Thread.currentThread().getName(), held.size(), committed, failed);
    }
    clearHeld();
    holding = null;
    committed = false;
    failed = false;
  }

  /**
   * The commit failed: what was held is dropped, and so is what the holding thread sends until
   * it learns of the failure ({@link #dropHeldSends}), so that nothing sent after the offsets the
   * commit took goes into a transaction of its own while what came before was aborted.
   */
  private synchronized void failHold() {
    clearHeld();
    failed = true;
  }

  /** Forgets what was held; wakes a thread waiting for room to hold more. Under the lock. */
  private void clearHeld() {
    held.clear();
    heldBytes = 0;
    notifyAll();
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
    sendHeldIfCommitted(); // what the last hold kept, if nothing sent it: it belongs in this one
    if (!open && offsets.isEmpty()) {
      committed(); // nothing sent, nothing processed: nothing to commit
      return;
    }
    boolean done = false;
    try {
      begin();
      if (!offsets.isEmpty()) {
        producer.sendOffsetsToTransaction(offsets, group);
      }
      awaitCommitRecords();
      producer.commitTransaction();
      open = false;
      done = true;
      LOG.debug("{}: committed on {}", transactionalId, Thread.currentThread().getName());
      committed();
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
    } finally {
      commitRecords.clear();
      if (!done && holding != null) {
        failHold(); // it failed: what was held followed what did not commit
      }
    }
  }

  /**
   * Before the commit: every record of the commit itself is acknowledged. Kafka's producer sends
   * the commit only once every batch of the transaction is done, yet three CI runs (2026-11-27 and
   * 11-29, client and broker 4.3.1) saw a commit go through without its checkpoint record: once
   * {@code commitTransaction()} returned and the record's future never completed; twice (each
   * process killed just after) the committed outputs stood in the log without the record, and a
   * restart processed their inputs again. So the records are flushed and checked first (the
   * commit waited for them anyway: no round trip is added); one still not acknowledged is waited
   * for a while, then the transaction is aborted rather than committed without it.
   */
  private void awaitCommitRecords() {
    if (commitRecords.isEmpty()) {
      return;
    }
    producer.flush();
    for (Future<RecordMetadata> sent : commitRecords) {
      if (!sent.isDone()) {
        awaitLate(sent);
      }
    }
  }

  private void awaitLate(Future<RecordMetadata> sent) {
    LOG.error("{}: Kafka's producer flushed the transaction while a record of its commit was not "
        + "acknowledged, which it must not; waiting up to {} ms for it before committing",
        transactionalId, lateRecordWaitMs);
    try {
      RecordMetadata m = sent.get(lateRecordWaitMs, TimeUnit.MILLISECONDS);
      LOG.error("{}: the late record was acknowledged at {}-{} offset {}; committing",
          transactionalId, m.topic(), m.partition(), m.offset());
    } catch (ExecutionException e) {
      // The record failed: the commit fails with the transaction's error (and aborts it).
    } catch (java.util.concurrent.TimeoutException e) {
      CheckpointException failure = new CheckpointException("a checkpoint record of transaction "
          + transactionalId + " was still not acknowledged " + lateRecordWaitMs + " ms after "
          + "Kafka's producer flushed the transaction, which it must not: the transaction is "
          + "aborted rather than committed without its checkpoint");
      abortQuietly(failure);
      throw failure;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException("interrupted while waiting for a checkpoint record", e);
    }
  }

  /**
   * Ends a hold whose commit failed or never ran: what was held is dropped. Not once the commit
   * committed: what was held then follows it, and the holding thread sends it.
   */
  @Override
  public synchronized void dropHeldSends() {
    if (!committed) {
      stopHolding();
    }
  }

  /**
   * Aborts what was sent since the last commit.
   *
   * @throws CheckpointException if another producer took the transactional id over (what was
   *     sent is aborted all the same, and this producer cannot go on)
   */
  public synchronized void abort() {
    try {
      abortOnly();
    } finally {
      commitRecords.clear();
      // What was held followed what is aborted now: it goes too. (After the abort: a send that
      // saw no hold any more must not find the aborted transaction still open.)
      stopHolding();
    }
  }

  private synchronized void abortOnly() {
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
      abortOnly(); // the hold stays, failed, until the loop learns of the failure
    } catch (RuntimeException e) { // KafkaException, or a fence (CheckpointException)
      cause.addSuppressed(e); // the producer cannot go on: the caller's failure says why
    }
  }

  /**
   * Whether a failure means the broker aborted the container's transaction itself (it stayed
   * open past {@code transaction.timeout.ms}, as when the process was paused): what it sent since
   * the last commit is gone, and its tasks are lost as if it had been fenced.
   */
  private static boolean isAbortedByBroker(Throwable failure) {
    return failure instanceof InvalidProducerEpochException
        || failure instanceof InvalidTxnStateException
        || failure instanceof TransactionAbortedException;
  }

  /**
   * Whether a record's failure is its transaction's abort, not the record's own: the producer
   * fails the records still waiting in an aborted transaction with the error that aborted it,
   * this process's, the broker's (the transaction stayed open too long) or the group's (it
   * refused the commit's offsets, this member's generation being gone).
   */
  public static boolean abortedWithItsTransaction(Throwable failure) {
    return isAbortedByBroker(failure) || failure instanceof CommitFailedException
        || failure instanceof FencedInstanceIdException;
  }

  private CommitFencedException abortedByBroker(Throwable e) {
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
