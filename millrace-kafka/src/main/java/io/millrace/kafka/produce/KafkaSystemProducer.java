package io.millrace.kafka.produce;

import io.millrace.api.Headers;
import io.millrace.api.Serde;
import io.millrace.api.metrics.Counter;
import io.millrace.spi.system.OutputFailedException;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemContext;
import io.millrace.spi.system.SystemProducer;
import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.kafka.settings.KafkaCoordinatorSettings;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a container's Kafka outputs through one {@code KafkaProducer}, which batches by size and
 * linger time ({@code producer.batch.size}, {@code producer.linger.ms}). Keys and values are
 * serialized on the loop thread with the stream's serdes; a serialization error throws from
 * {@code send}, so the task's error policy applies to the message that sent it.
 *
 * <p>A send that fails later (the broker refused it, or it was not acknowledged within the
 * producer's {@code delivery.timeout.ms}) is remembered by the one shared callback, and {@link
 * #flush} (which a commit calls before writing the checkpoint) throws it: the commit does not pass
 * a message whose output was not acknowledged. Only under {@code task.error.policy=skip} is such
 * a record logged, counted ({@code kafka-send-failed}) and left behind; under {@code dead-letter}
 * it stops the job like {@code fail}, because the record is no longer the task's to dead-letter.
 *
 * <p>Under {@code job.coordinator=kafka}, on the group's cluster, the producer is transactional
 * ({@link ContainerTransaction}): a commit's outputs and changelog records become visible to
 * readers of committed data together with the commit's checkpoint, and a member that lost its
 * tasks cannot commit. A refused record then fails the commit under every error policy: it
 * leaves the transaction unable to commit.
 */
public final class KafkaSystemProducer implements SystemProducer {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSystemProducer.class);
  private final SystemContext context;
  private final KafkaSettings settings;
  private final boolean skipFailures;
  private final Counter sendFailed;
  private String[] topics = new String[0];
  private Serde<Object>[] keySerdes = newSerdes(0);
  private Serde<Object>[] valueSerdes = newSerdes(0);
  private KafkaProducer<byte[], byte[]> producer;
  /** The container's transaction under job.coordinator=kafka, or null. */
  private ContainerTransaction transaction;
  private final String transactionalId;
  private final AtomicReference<Exception> firstFailure = new AtomicReference<>();

  /**
   * One callback per output, shared by all its sends: no allocation per message beyond Kafka's
   * own record, and the callback knows its output without a lookup.
   */
  private Callback[] callbacks = new Callback[0];
  /**
   * The offset of the last acknowledged record of each output partition. Written by the
   * producer's network thread in callbacks; read on the thread that called {@code flush()} (the
   * loop's or the commit's), which returns only after those callbacks ran (a happens-before
   * through the batch's latch). Written with release and read with acquire: a commit's thread
   * may read an offset acknowledged after its flush, and what the sending thread did before
   * that send (an engine write) must then be visible to it too (a plain store and load on x86).
   */
  private AtomicLongArray[] acked =
      new AtomicLongArray[0];
  /**
   * Each output's partition count, for the check on every send: a plain array the network thread
   * never writes, where {@code acked[index].length()} reads an array header that shares its cache
   * line with offsets the network thread writes on every acknowledgement. (A pass-through profile
   * did not show the difference within its noise; see docs/benchmarks.md, issue 35.)
   */
  private int[] partitionCounts = new int[0];

  /** A producer for one container. */
  public KafkaSystemProducer(SystemContext context, KafkaSettings settings) {
    this.context = context;
    this.settings = settings;
    this.transactionalId = JobTransactions.transactionalId(context.jobConfig(),
        settings.system(), context.containerId());
    this.skipFailures = transactionalId == null
        && "skip".equals(context.jobConfig().get("task.error.policy"));
    this.sendFailed = context.metrics().counter("container-" + context.containerId(),
        "kafka-send-failed");
  }

  @SuppressWarnings("unchecked") // an array of the streams' serdes
  private static Serde<Object>[] newSerdes(int n) {
    return (Serde<Object>[]) new Serde<?>[n];
  }

  @Override
  @SuppressWarnings("unchecked") // the stream's serde takes what the task sends to it
  public void register(int index, StreamSpec stream, int partitionCount) {
    if (topics.length <= index) {
      topics = Arrays.copyOf(topics, index + 1);
      keySerdes = Arrays.copyOf(keySerdes, index + 1);
      valueSerdes = Arrays.copyOf(valueSerdes, index + 1);
      callbacks = Arrays.copyOf(callbacks, index + 1);
      acked = Arrays.copyOf(acked, index + 1);
      partitionCounts = Arrays.copyOf(partitionCounts, index + 1);
    }
    partitionCounts[index] = partitionCount;
    callbacks[index] = (metadata, error) -> onAcknowledged(index, metadata, error);
    acked[index] = new AtomicLongArray(partitionCount);
    for (int p = 0; p < partitionCount; p++) {
      acked[index].setPlain(p, -1);
    }
    topics[index] = stream.physicalName();
    keySerdes[index] = (Serde<Object>) stream.keySerde();
    valueSerdes[index] = (Serde<Object>) stream.valueSerde();
  }

  @Override
  public void start() {
    java.util.Properties props = settings.producerProperties("millrace-" + context.jobName()
        + "-" + context.containerId() + "-" + settings.system() + "-producer");
    if (transactionalId != null) {
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
      props.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
          Long.toString(transactionTimeoutMs(context.jobConfig())));
    }
    producer = new KafkaProducer<>(props);
    if (transactionalId != null) {
      transaction = new ContainerTransaction(producer, transactionalId,
          CommitTransactions.where(settings), settings.system());
    }
  }

  /**
   * How long a transaction may stay open: four commit intervals, at least 10 s and at most 15
   * min. A process that dies leaves its transaction open this long, holding back readers of
   * committed data of the partitions it wrote (a new owner's restore reads only to the last
   * committed offset and is not held back).
   */
  static long transactionTimeoutMs(java.util.Map<String, String> jobConfig) {
    String commit = jobConfig.get("task.commit.ms");
    long commitMs = commit == null ? KafkaCoordinatorSettings.DEFAULT_COMMIT_MS
        : Long.parseLong(commit.trim());
    // At most the broker's default transaction.max.timeout.ms (15 min), which refuses more.
    return Math.min(900_000, Math.max(10_000, 4 * Math.max(0, commitMs)));
  }

  /** The name of the Kafka system it writes to. */
  public String system() {
    return settings.system();
  }

  /**
   * The container's transaction, if its sends are transactional (under {@code
   * job.coordinator=kafka}, on the group's cluster): the job's checkpoint commits it.
   */
  @Override
  public ContainerTransaction transaction() {
    return transaction;
  }

  @Override
  public void abandon() {
    if (transaction != null) {
      firstFailure.set(null); // what failed is dropped with the rest
      transaction.abort(); // the records it fails are no output failure (onAcknowledged)
    }
  }

  @Override
  public void send(int index, int partition, Object key, Object value, long timestamp) {
    send(record(index, partition, key, value, timestamp), index);
  }

  @Override
  public void send(int index, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    ProducerRecord<byte[], byte[]> record = record(index, partition, key, value, timestamp);
    for (int i = 0; i < headers.size(); i++) { // into the record's own list: no copy of a list
      record.headers().add(headers.name(i), headers.value(i));
    }
    send(record, index);
  }

  /** Serializes on the calling thread: a serde's failure is the sending message's own. */
  private ProducerRecord<byte[], byte[]> record(int index, int partition, Object key,
      Object value, long timestamp) {
    throwIfFailed();
    if (partition >= partitionCounts[index]) {
      // Kafka's producer would wait max.block.ms for the partition to appear, then fail the
      // record as if the broker had: the loop stalled, and the failure charged to a later message.
      throw new IllegalArgumentException("output topic " + topics[index] + " has "
          + partitionCounts[index] + " partitions: there is no partition " + partition);
    }
    byte[] k = key == null ? null : keySerdes[index].toBytes(key);
    byte[] v = value == null ? null : valueSerdes[index].toBytes(value);
    return new ProducerRecord<>(topics[index], partition < 0 ? null : partition,
        timestamp < 0 ? null : timestamp, k, v);
  }

  private void send(ProducerRecord<byte[], byte[]> record, int index) {
    Future<RecordMetadata> sent = transaction != null
        ? transaction.send(record, callbacks[index]) // null: held while a commit runs beside
        : producer.send(record, callbacks[index]);
    // Done already only if refused before it left (one volatile read per send otherwise).
    if (sent != null && sent.isDone()) {
      refusedNow(sent, topics[index]);
    }
  }

  /**
   * A record refused by the producer itself, within its send (larger than max.request.size, say):
   * outside a transaction that is the sending message's own failure, so it is thrown from this
   * send, and the task's error policy applies to that message (not to the next one). Under skip
   * the callback counted and logged it already. In a transaction the refusal leaves the
   * transaction unable to commit, so it stays remembered and fails the next send or commit.
   */
  private void refusedNow(Future<RecordMetadata> sent, String topic) {
    Throwable cause;
    try {
      sent.get();
      return;
    } catch (ExecutionException e) {
      cause = e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (skipFailures || transaction != null || !(cause instanceof RecordTooLargeException
        || cause instanceof InvalidRecordException)) {
      return;
    }
    Exception remembered = firstFailure.get();
    if (remembered != null && remembered.getCause() == cause) {
      firstFailure.compareAndSet(remembered, null); // charged to this message instead
    }
    throw new IllegalArgumentException("the record it sent to topic " + topic + " was refused by "
        + "the producer of Kafka system '" + settings.system() + "': " + cause, cause);
  }

  /** KafkaProducer is thread-safe, and the serdes and topics are fixed before {@link #start}. */
  @Override
  public boolean concurrentSends() {
    return true;
  }

  /**
   * KafkaProducer's flush waits for what was sent before it while other threads send; the
   * acknowledged offsets are written before the flush returns.
   */
  @Override
  public boolean concurrentFlush() {
    return true;
  }

  @Override
  public long lastOffset(int index, int partition) {
    return acked[index].getAcquire(partition);
  }

  private void onAcknowledged(int index, RecordMetadata metadata, Exception error) {
    if (error == null) {
      AtomicLongArray partitions = acked[index];
      int p = metadata.partition();
      // One writer (the producer's network thread): a plain read, a release write.
      if (p >= 0 && p < partitions.length() && metadata.offset() > partitions.getPlain(p)) {
        partitions.setRelease(p, metadata.offset());
      }
      return;
    }
    String where = metadata == null ? "" : " to topic " + metadata.topic() + " partition "
        + metadata.partition();
    if (transaction != null && ContainerTransaction.abortedWithItsTransaction(error)) {
      // The record was in a transaction that is aborted: by this process, by the broker (open
      // too long) or with offsets the group refused. Whichever, that transaction's commit fails
      // too, and says so: the one place the container learns of a fence. No message's output
      // failed. Kept here, the failure would reach whatever send came next, and the producer
      // reports aborted records when it gets to them, possibly after the container has dropped
      // those tasks and taken new ones, which it would then lose for nothing.
      LOG.debug("a record sent{} on Kafka system '{}' was aborted with its transaction: {}",
          where, settings.system(), error.toString());
      return;
    }
    if (skipFailures) {
      sendFailed.inc();
      LOG.error("a record sent{} on Kafka system '{}' failed and is skipped "
          + "(task.error.policy=skip): {}", where, settings.system(), error.toString());
      return;
    }
    firstFailure.compareAndSet(null, new OutputFailedException("a record sent" + where
        + " on Kafka system '" + settings.system() + "' was not acknowledged: " + error
        + " (not charged to the message being processed, which did not send it; nothing from "
        + "the last commit on is committed)", error));
  }

  private void throwIfFailed() {
    Exception failure = firstFailure.get();
    if (failure == null) {
      return;
    }
    throw (OutputFailedException) failure;
  }

  @Override
  public void flush() {
    producer.flush(); // waits for every record sent so far to be acknowledged or to fail
    throwIfFailed();
  }

  @Override
  public void stop() {
    if (producer != null) {
      if (transaction != null) {
        try {
          transaction.abort(); // what no commit took is not to be kept (closing with a
          // transaction open also waits out the whole close time-out); the records it fails
          // are no output failure (onAcknowledged)
        } catch (RuntimeException e) {
          LOG.warn("aborting the open transaction of {} failed: {}", transactionalId, e.toString());
        }
      }
      try {
        producer.close(Duration.ofSeconds(30));
      } finally {
        producer = null;
      }
      throwIfFailed();
    }
  }
}
