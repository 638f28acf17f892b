package io.millrace.kafka.consume;

import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.Serde;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.batching.handoff.BatchedHandoff;
import io.millrace.kafka.settings.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetch thread of one container's Kafka consumer: polls the broker, deserializes records into
 * envelopes (off the loop thread) and hands them to the loop through a {@link BatchedHandoff}, one
 * flush per poll. It owns the {@code KafkaConsumer}; the loop thread talks to it only through a
 * command queue (partitions to add and remove) and each partition's volatile fields (pause
 * requests in; head, position out), plus a failure out.
 *
 * <p>A partition added while the thread runs starts a new epoch of its index in the hand-off, and
 * one removed ends it, so a batch fetched for a registration the loop has given up never reaches
 * the loop (see {@link BatchedHandoff#producerEpoch}).
 */
final class FetchThread implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(FetchThread.class);
  /** Heads and positions of partitions without records are refreshed this often. */
  private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /**
   * One registration of a partition: shared by the loop (which reads head and position and writes
   * pauseWanted) and the fetch thread (which owns the rest).
   */
  static final class Partition {
    final int index;
    final int epoch;
    final StreamSpec stream;
    final TopicPartition topicPartition;
    final StartPosition start;
    final boolean upcomingByDefault;
    /** The upcoming offset, for lag; -1 until known. */
    volatile long head = -1;
    /** Every record before it is in the hand-off; -1 until known. */
    volatile long position = -1;
    volatile boolean pauseWanted;
    /** Fetch thread: whether the consumer has it paused now. */
    boolean paused;

    Partition(int index, int epoch, StreamSpec stream, TopicPartition topicPartition,
        StartPosition start, boolean upcomingByDefault) {
      this.index = index;
      this.epoch = epoch;
      this.stream = stream;
      this.topicPartition = topicPartition;
      this.start = start;
      this.upcomingByDefault = upcomingByDefault;
    }
  }

  /** A change of the assignment, from the loop thread: a partition to add, or one to remove. */
  private record Command(Partition add, Partition remove) {}

  private final KafkaSettings settings;
  private final Properties properties;
  private final BatchedHandoff handoff;
  /** Fetch thread: the partitions read now. */
  private final Map<TopicPartition, Partition> assigned = new LinkedHashMap<>();
  private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
  private final CountDownLatch started = new CountDownLatch(1);
  private volatile boolean pauseChanged;
  private volatile boolean stopped;
  private volatile Throwable failure;
  private volatile Thread waiting;
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private volatile Thread fetcher;

  FetchThread(KafkaSettings settings, Properties properties, List<Partition> initial,
      BatchedHandoff handoff) {
    this.settings = settings;
    this.properties = properties;
    this.handoff = handoff;
    for (Partition p : initial) {
      commands.add(new Command(p, null));
    }
  }

  BatchedHandoff handoff() {
    return handoff;
  }

  /** Loop thread: reads a partition from now on (its index's hand-off epoch is set already). */
  void add(Partition p) {
    commands.add(new Command(p, null));
    wakeUp();
  }

  /** Loop thread: stops reading a partition. */
  void remove(Partition p) {
    commands.add(new Command(null, p));
    wakeUp();
  }

  /** Loop thread: asks for a partition to be paused or resumed before the next fetch. */
  void pause(Partition p, boolean paused) {
    p.pauseWanted = paused;
    pauseChanged = true;
    if (!paused) {
      // A poll with every partition paused sleeps out its whole timeout (100 ms) while the loop
      // runs dry: a resume wakes it. A pause need not: it waits for the next turn.
      wakeUp();
    }
  }

  private void wakeUp() {
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup(); // a poll in progress returns at once, so the change is applied now
    }
    Thread t = fetcher;
    if (t != null) {
      LockSupport.unpark(t); // or the wait of a thread with nothing to read
    }
  }

  /** Loop thread: throws what failed the fetch thread, naming the system. */
  void rethrowFailure() {
    Throwable f = failure;
    if (f != null) {
      throw new IllegalStateException("Kafka consumer of system '" + settings.system()
          + "' failed: " + f, f);
    }
  }

  /** Loop thread: waits up to {@code nanos} for a batch, woken by the fetch thread. */
  void awaitBatches(long nanos) {
    waiting = Thread.currentThread();
    if (!handoff.hasBatches() && failure == null) {
      LockSupport.parkNanos(nanos);
    }
    waiting = null;
  }

  /** Waits until the consumer is assigned and positioned; throws what failed. */
  void awaitStarted() {
    try {
      started.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    rethrowFailure();
  }

  void stop() {
    stopped = true;
    handoff.close();
    wakeUp();
  }

  @Override
  public void run() {
    fetcher = Thread.currentThread();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(properties)) {
      consumer = c;
      applyCommands(c);
      started.countDown();
      fetch(c);
    } catch (WakeupException e) {
      if (!stopped) {
        failure = e;
      }
    } catch (Throwable e) {
      if (!stopped) {
        LOG.error("Kafka consumer of system '{}' failed", settings.system(), e);
        failure = e;
      }
    } finally {
      started.countDown();
      wakeLoop();
    }
  }

  /** Applies the loop's changes to the assignment: one {@code assign} for all of them. */
  private void applyCommands(KafkaConsumer<byte[], byte[]> c) {
    if (commands.isEmpty()) {
      return;
    }
    List<Partition> added = new ArrayList<>();
    Command command;
    while ((command = commands.poll()) != null) {
      if (command.add() != null) {
        Partition p = command.add();
        assigned.put(p.topicPartition, p);
        added.add(p);
      } else if (assigned.get(command.remove().topicPartition) == command.remove()) {
        assigned.remove(command.remove().topicPartition);
        added.remove(command.remove());
      }
    }
    // Records fetched for a partition no longer assigned are dropped by the consumer; those in
    // the hand-off carry an epoch the loop has given up.
    c.assign(List.copyOf(assigned.keySet()));
    if (!added.isEmpty()) {
      // A partition removed and added again in one batch never left the consumer, which kept its
      // pause: a new registration starts unpaused.
      List<TopicPartition> fresh = new ArrayList<>();
      for (Partition p : added) {
        fresh.add(p.topicPartition);
      }
      c.resume(fresh);
    }
    for (Partition p : added) {
      handoff.producerEpoch(p.index, p.epoch);
      seekStart(c, p);
      p.paused = false;
    }
    pauseChanged = true; // a new partition may already be wanted paused
  }

  private static void seekStart(KafkaConsumer<byte[], byte[]> c, Partition p) {
    TopicPartition tp = p.topicPartition;
    switch (p.start.kind()) {
      case AFTER -> c.seek(tp, p.start.offset() + 1);
      case OLDEST -> c.seekToBeginning(List.of(tp));
      case UPCOMING -> c.seekToEnd(List.of(tp));
    }
  }

  private void fetch(KafkaConsumer<byte[], byte[]> c) {
    Duration pollTimeout = Duration.ofMillis(settings.pollTimeoutMs());
    Envelope[] scratch = new Envelope[1024];
    long nextRefresh = 0;
    List<Partition> touched = new ArrayList<>();
    List<Long> touchedPosition = new ArrayList<>();
    while (!stopped) {
      ConsumerRecords<byte[], byte[]> records;
      try {
        applyCommands(c);
        if (pauseChanged) {
          applyPauses(c);
        }
        if (assigned.isEmpty()) {
          LockSupport.parkNanos(pollTimeout.toNanos()); // nothing to read: wait for a command
          continue;
        }
        records = c.poll(pollTimeout);
      } catch (WakeupException e) {
        continue; // woken for a command, or to stop (the loop's condition)
      } catch (OffsetOutOfRangeException e) {
        resetOutOfRange(c, e);
        continue;
      }
      touched.clear();
      touchedPosition.clear();
      for (TopicPartition tp : records.partitions()) {
        Partition p = assigned.get(tp);
        if (p == null) {
          continue; // removed while these were fetched
        }
        List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
        int n = list.size();
        if (scratch.length < n) {
          scratch = new Envelope[n];
        }
        int i = 0;
        long last = -1;
        for (ConsumerRecord<byte[], byte[]> r : list) {
          scratch[i++] = envelope(p, r);
          last = r.offset();
        }
        if (!offerAll(p.index, scratch, n)) {
          return; // stopped while the loop was not taking batches
        }
        java.util.Arrays.fill(scratch, 0, n, null);
        touched.add(p);
        // The consumer's position, not last + 1: it is past the commit markers (and aborted
        // records) that follow the last record, so a restore whose target is the last stable
        // offset ends now instead of at the next refresh, 200 ms later.
        touchedPosition.add(Math.max(last + 1, positionOf(c, tp)));
      }
      if (!records.isEmpty()) {
        if (!handoff.flush()) {
          return;
        }
        // Published after the batches they cover (see KafkaSystemConsumer.poll).
        for (int i = 0; i < touched.size(); i++) {
          touched.get(i).position = touchedPosition.get(i);
        }
        wakeLoop();
      }
      long now = System.nanoTime();
      if (now >= nextRefresh) {
        // After the flush: every record before a position published here is in the hand-off.
        try {
          refresh(c);
        } catch (WakeupException e) {
          continue; // a command came: the refresh waits for the next turn
        }
        nextRefresh = now + REFRESH_NANOS;
      }
    }
  }

  private boolean offerAll(int index, Envelope[] messages, int count) {
    int taken = 0;
    int idle = 0;
    while (taken < count) {
      taken += handoff.tryOfferAll(index, messages, taken, count - taken);
      if (taken < count) {
        if (stopped) {
          return false;
        }
        wakeLoop();
        LockSupport.parkNanos(++idle < 10 ? 10_000 : 100_000); // the loop is behind: wait for it
      }
    }
    return true;
  }

  /** The record's headers; records without any share {@link Headers#EMPTY} (no allocation). */
  private static Headers headers(ConsumerRecord<byte[], byte[]> r) {
    Header[] all = r.headers().toArray(); // Kafka's shared empty array when there are none
    if (all.length == 0) {
      return Headers.EMPTY;
    }
    String[] names = new String[all.length];
    byte[][] values = new byte[all.length][];
    for (int i = 0; i < all.length; i++) {
      names[i] = all[i].key();
      values[i] = all[i].value();
    }
    return Headers.wrap(names, values);
  }

  private Envelope envelope(Partition p, ConsumerRecord<byte[], byte[]> r) {
    int size = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
    StreamSpec stream = p.stream;
    Object key;
    Object value;
    try {
      key = deserialize(stream.keySerde(), r.key());
    } catch (RuntimeException e) {
      return unreadable(stream, r, size, "key", stream.keySerde(), e);
    }
    try {
      value = deserialize(stream.valueSerde(), r.value());
    } catch (RuntimeException e) {
      return unreadable(stream, r, size, "value", stream.valueSerde(), e);
    }
    return new Envelope(stream.id(), r.partition(), r.offset(), key, value, r.timestamp(), size,
        headers(r));
  }

  /** A record whose key or value its serde cannot read: kept raw, with its headers. */
  private static Envelope unreadable(StreamSpec stream, ConsumerRecord<byte[], byte[]> r,
      int size, String what, Serde<?> serde, RuntimeException e) {
    return Envelope.unreadable(stream.id(), r.partition(), r.offset(), r.key(), r.value(),
        r.timestamp(), size, new IllegalArgumentException("cannot deserialize the " + what
            + " of topic " + r.topic() + " partition " + r.partition() + " offset " + r.offset()
            + " with " + serde.getClass().getSimpleName() + ": " + e.getMessage(), e),
        headers(r));
  }

  @SuppressWarnings("unchecked") // the stream's serde is declared for its objects
  private static Object deserialize(Serde<?> serde, byte[] bytes) {
    return bytes == null ? null : ((Serde<Object>) serde).fromBytes(bytes);
  }

  private void applyPauses(KafkaConsumer<byte[], byte[]> c) {
    pauseChanged = false;
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (Partition p : assigned.values()) {
      boolean wanted = p.pauseWanted;
      if (wanted != p.paused) {
        p.paused = wanted;
        (wanted ? pause : resume).add(p.topicPartition);
      }
    }
    if (!pause.isEmpty()) {
      c.pause(pause);
    }
    if (!resume.isEmpty()) {
      c.resume(resume);
    }
  }

  /**
   * A checkpointed offset is no longer on the broker (retention deleted it): resume where the
   * stream's {@code offset.default} says, and say so.
   */
  private void resetOutOfRange(KafkaConsumer<byte[], byte[]> c, OffsetOutOfRangeException e) {
    for (Map.Entry<TopicPartition, Long> out : e.offsetOutOfRangePartitions().entrySet()) {
      Partition p = assigned.get(out.getKey());
      if (p == null) {
        continue;
      }
      LOG.warn("offset {} of {} is no longer on Kafka system '{}' (deleted by retention?): "
              + "resuming at the {} offset (streams.{}.offset.default)", out.getValue(),
          out.getKey(), settings.system(), p.upcomingByDefault ? "upcoming" : "oldest",
          p.stream.id());
      if (p.upcomingByDefault) {
        c.seekToEnd(List.of(out.getKey()));
      } else {
        c.seekToBeginning(List.of(out.getKey()));
      }
    }
  }

  /**
   * The consumer's position in a partition it just returned records of, or -1 when it cannot say
   * at once: not known yet (being validated after a leader change, which may also report a
   * truncation the next poll raises), or a command's wake-up came (applied at the next turn).
   */
  private static long positionOf(KafkaConsumer<byte[], byte[]> c, TopicPartition tp) {
    try {
      return c.position(tp, Duration.ZERO);
    } catch (KafkaException notNow) { // a timeout and a wake-up are ones too
      return -1;
    }
  }

  /** Heads (for lag) and positions of every partition, from the consumer's own state. */
  private void refresh(KafkaConsumer<byte[], byte[]> c) {
    for (Partition p : assigned.values()) {
      TopicPartition tp = p.topicPartition;
      OptionalLong lag = c.currentLag(tp);
      if (lag.isPresent()) {
        long position;
        try {
          position = c.position(tp, Duration.ZERO);
        } catch (org.apache.kafka.common.errors.TimeoutException unknownYet) {
          continue;
        }
        p.head = position + lag.getAsLong();
        // Every record before the position is in the hand-off already: each poll's batches are
        // flushed before this runs. (A position past the last record means skipped offsets.)
        if (position > p.position) {
          p.position = position;
        }
      }
    }
  }

  private void wakeLoop() {
    Thread loop = waiting;
    if (loop != null) {
      LockSupport.unpark(loop);
    }
  }
}
