package io.millrace.batching.handoff;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jctools.queues.SpscArrayQueue;

/**
 * Hands messages from one fetch thread to one loop thread in batches, QBit-style: a partition's
 * batch leaves when it is full or when it has waited {@code lingerNanos} since its first message,
 * and the producer flushes everything when it goes idle.
 *
 * <p>Threading contract: {@link #offer}, {@link #endOfStream}, {@link #flushLingering} and
 * {@link #flush} are called by one producer thread; {@link #drain} by one consumer thread. Batches
 * travel through a bounded SPSC queue and come back through a second one to be reused, so the
 * steady state allocates nothing: the cost per message is one array store on each side, and the
 * queue's memory barriers are paid once per batch instead of once per message.
 *
 * <p>Back pressure: when the queue is full the producer waits (spin, yield, then park), so memory
 * stays bounded: the queue holds {@code queueBatches} batches rounded up to a power of two (at
 * least 4, JCTools' sizing), plus one open batch per partition (which may be full and waiting).
 *
 * <p>Epochs: when a partition index is given up and given again (a container's tasks change), its
 * batches from before must not reach the new registration. Each side keeps an epoch per index:
 * the producer stamps batches with its epoch ({@link #producerEpoch}), and {@link #drain} drops a
 * batch whose epoch is not the consumer's ({@link #consumerEpoch}). Both start at 0; indices grow
 * as they are used.
 */
public final class BatchedHandoff {
  private final int batchSize;
  private final long lingerNanos;
  private final LongSupplier clock;
  private final SpscArrayQueue<Batch> full;
  private final SpscArrayQueue<Batch> free;
  /** Producer side: the open batch of each partition index, or null. */
  private Batch[] open;
  /** Producer side: the epoch batches of each index are stamped with. */
  private int[] producerEpochs;
  /** Consumer side: the epoch a batch of each index must carry to be handed over. */
  private int[] consumerEpochs;
  private volatile boolean closed;

  /**
   * Creates a hand-off.
   *
   * @param partitions how many partition indices (0 .. partitions - 1) may be offered
   * @param batchSize the messages a batch holds before it leaves
   * @param queueBatches the most batches waiting for the consumer
   * @param lingerNanos how long a batch may wait for more messages
   * @param clock the producer's clock ({@link System#nanoTime} outside tests)
   */
  public BatchedHandoff(
      int partitions, int batchSize, int queueBatches, long lingerNanos, LongSupplier clock) {
    this.batchSize = batchSize;
    this.lingerNanos = lingerNanos;
    this.clock = clock;
    this.full = new SpscArrayQueue<>(Math.max(2, queueBatches));
    this.free = new SpscArrayQueue<>(Math.max(2, queueBatches + partitions));
    this.open = new Batch[partitions];
    this.producerEpochs = new int[partitions];
    this.consumerEpochs = new int[partitions];
  }

  /**
   * Starts a new epoch of a partition index on the producer side: its open batch, which belongs
   * to the old one, is dropped, and batches from now on carry {@code epoch}. Producer thread.
   */
  public void producerEpoch(int index, int epoch) {
    ensureProducer(index);
    producerEpochs[index] = epoch;
    Batch stale = open[index];
    if (stale != null) {
      // Emptied and kept open for the new epoch (only the consumer may return batches to the
      // free queue: it is single-producer).
      Arrays.fill(stale.items, 0, stale.size, null);
      stale.size = 0;
      stale.end = false;
      stale.epoch = epoch;
      stale.firstNanos = clock.getAsLong();
    }
  }

  /**
   * Sets the epoch whose batches of a partition index {@link #drain} hands over; waiting batches
   * of any other epoch are dropped when they come out. Consumer thread.
   */
  public void consumerEpoch(int index, int epoch) {
    if (index >= consumerEpochs.length) {
      consumerEpochs = Arrays.copyOf(consumerEpochs, Math.max(index + 1, consumerEpochs.length * 2));
    }
    consumerEpochs[index] = epoch;
  }

  private void ensureProducer(int index) {
    if (index >= open.length) {
      int size = Math.max(index + 1, open.length * 2);
      open = Arrays.copyOf(open, size);
      producerEpochs = Arrays.copyOf(producerEpochs, size);
    }
  }

  /**
   * Adds a message to its partition's open batch; the batch leaves when full. Waits while the
   * queue is full. Producer thread.
   *
   * @return false if the hand-off was closed while waiting for room
   */
  public boolean offer(int index, Envelope message) {
    int idle = 0;
    while (!tryOffer(index, message)) {
      if (closed) {
        return false;
      }
      backOff(++idle);
    }
    return true;
  }

  /**
   * Adds a message unless its partition's batch is full and the queue has no room for it.
   * Producer thread.
   *
   * @return false if the message was not taken (the queue is full): try again later
   */
  public boolean tryOffer(int index, Envelope message) {
    Batch batch = batchWithRoom(index);
    if (batch == null) {
      return false;
    }
    batch.items[batch.size++] = message;
    sendIfFull(index, batch);
    return true;
  }

  /**
   * Adds a run of one partition's messages (what a network fetch returns), copying them into
   * batches with {@link System#arraycopy}. One bulk copy instead of a store per message also
   * saves G1's per-store card-marking barrier. Producer thread.
   *
   * @return how many messages were taken; fewer than {@code count} when the queue is full
   */
  public int tryOfferAll(int index, Envelope[] messages, int from, int count) {
    int taken = 0;
    while (taken < count) {
      Batch batch = batchWithRoom(index);
      if (batch == null) {
        return taken;
      }
      int n = Math.min(count - taken, batchSize - batch.size);
      System.arraycopy(messages, from + taken, batch.items, batch.size, n);
      batch.size += n;
      taken += n;
      sendIfFull(index, batch);
    }
    return taken;
  }

  /**
   * The partition's open batch if it has room, else a new one; null when a full batch is still
   * waiting for room in the queue (it found the queue full when it filled up).
   */
  private Batch batchWithRoom(int index) {
    if (index >= open.length) {
      ensureProducer(index);
    }
    Batch batch = open[index];
    if (batch == null) {
      return openBatch(index);
    }
    if (batch.size < batchSize) {
      return batch;
    }
    if (!full.relaxedOffer(batch)) {
      return null;
    }
    return openBatch(index);
  }

  /** Sends a batch that just filled up; if the queue is full it stays open until there is room. */
  private void sendIfFull(int index, Batch batch) {
    if (batch.size == batchSize && full.relaxedOffer(batch)) {
      open[index] = null;
    }
  }

  /** Marks the end of a partition: its open batch leaves with an end flag. Producer thread. */
  public boolean endOfStream(int index) {
    ensureProducer(index);
    Batch batch = open[index];
    if (batch == null) {
      batch = openBatch(index);
    }
    open[index] = null;
    batch.end = true;
    return publish(batch);
  }

  /** Sends every open batch that has lingered long enough. Producer thread. */
  public boolean flushLingering() {
    long now = clock.getAsLong();
    for (int i = 0; i < open.length; i++) {
      Batch batch = open[i];
      if (batch != null && now - batch.firstNanos >= lingerNanos) {
        open[i] = null;
        if (!publish(batch)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Sends every open batch now: the producer has nothing more for the moment. Producer thread. */
  public boolean flush() {
    for (int i = 0; i < open.length; i++) {
      Batch batch = open[i];
      if (batch != null) {
        open[i] = null;
        if (!publish(batch)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Hands every waiting batch to the sink, in the order they left. Consumer thread.
   *
   * @return how many messages were handed over
   */
  public int drain(BatchSink sink) {
    int messages = 0;
    Batch batch;
    while ((batch = full.relaxedPoll()) != null) {
      int index = batch.index;
      int epoch = index < consumerEpochs.length ? consumerEpochs[index] : 0;
      if (batch.epoch != epoch) {
        // A registration given up since: its messages are dropped, uncommitted.
        Arrays.fill(batch.items, 0, batch.size, null);
        batch.size = 0;
        batch.end = false;
      }
      if (batch.size > 0) {
        sink.accept(batch.index, batch.items, 0, batch.size);
        messages += batch.size;
        // The sink copied the references: clear ours so the pool retains no messages.
        Arrays.fill(batch.items, 0, batch.size, null);
      }
      if (batch.end) {
        sink.endOfStream(batch.index);
      }
      batch.size = 0;
      batch.end = false;
      free.relaxedOffer(batch); // a full pool drops the batch: only possible after growth
    }
    return messages;
  }

  /** Whether batches are waiting for the consumer. */
  public boolean hasBatches() {
    return !full.isEmpty();
  }

  /** Stops a waiting producer; later offers return false. Any thread. */
  public void close() {
    closed = true;
  }

  private Batch openBatch(int index) {
    Batch batch = free.relaxedPoll();
    if (batch == null) {
      batch = new Batch(batchSize); // warm-up only: batches come back through the free queue
    }
    batch.index = index;
    batch.epoch = producerEpochs[index];
    batch.firstNanos = clock.getAsLong();
    open[index] = batch;
    return batch;
  }

  private boolean publish(Batch batch) {
    int idle = 0;
    while (!full.relaxedOffer(batch)) {
      if (closed) {
        return false;
      }
      backOff(++idle);
    }
    return true;
  }

  /** Back pressure: the consumer is behind. Spin briefly, then yield, then park. */
  private static void backOff(int idle) {
    if (idle < 100) {
      Thread.onSpinWait();
    } else if (idle < 200) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(50_000);
    }
  }

  /** A batch of one partition's messages; owned by one side at a time. */
  private static final class Batch {
    final Envelope[] items;
    int index;
    int epoch;
    int size;
    boolean end;
    long firstNanos;

    Batch(int capacity) {
      items = new Envelope[capacity];
    }
  }
}
