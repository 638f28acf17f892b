package io.millrace.kafka.consume;

import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.api.system.StartPosition;
import io.millrace.api.system.StreamSpec;
import io.millrace.api.system.handoff.BatchedHandoff;
import io.millrace.kafka.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetch thread of one container's Kafka consumer: polls the broker, deserializes records into
 * envelopes (off the loop thread) and hands them to the loop through a {@link BatchedHandoff}, one
 * flush per poll. It owns the {@code KafkaConsumer}; the loop thread talks to it only through
 * atomics: pause requests in, heads, positions and a failure out.
 */
final class FetchThread implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(FetchThread.class);
  /** Heads and positions of partitions without records are refreshed this often. */
  private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** One partition the consumer reads. */
  record Partition(int index, StreamSpec stream, TopicPartition topicPartition,
      StartPosition start, boolean upcomingByDefault) {}

  private final KafkaSettings settings;
  private final Properties properties;
  private final List<Partition> partitions;
  private final Partition[] byIndex;
  private final BatchedHandoff handoff;
  private final AtomicIntegerArray pauseWanted;
  private final AtomicLongArray heads;
  private final AtomicLongArray positions;
  private final CountDownLatch started = new CountDownLatch(1);
  private volatile boolean pauseChanged;
  private volatile boolean stopped;
  private volatile Throwable failure;
  private volatile Thread waiting;
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  FetchThread(KafkaSettings settings, Properties properties, List<Partition> partitions,
      int indices, BatchedHandoff handoff) {
    this.settings = settings;
    this.properties = properties;
    this.partitions = partitions;
    this.byIndex = new Partition[indices];
    for (Partition p : partitions) {
      byIndex[p.index()] = p;
    }
    this.handoff = handoff;
    this.pauseWanted = new AtomicIntegerArray(indices);
    this.heads = new AtomicLongArray(indices);
    this.positions = new AtomicLongArray(indices);
    for (int i = 0; i < indices; i++) {
      heads.set(i, -1);
      positions.set(i, -1);
    }
  }

  BatchedHandoff handoff() {
    return handoff;
  }

  long head(int index) {
    return heads.get(index);
  }

  long position(int index) {
    return positions.get(index);
  }

  /** Loop thread: asks for a partition to be paused or resumed before the next fetch. */
  void pause(int index, boolean paused) {
    pauseWanted.set(index, paused ? 1 : 0);
    pauseChanged = true;
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
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  @Override
  public void run() {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(properties)) {
      consumer = c;
      Map<TopicPartition, Integer> indexOf = assign(c);
      started.countDown();
      fetch(c, indexOf);
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

  private Map<TopicPartition, Integer> assign(KafkaConsumer<byte[], byte[]> c) {
    Map<TopicPartition, Integer> indexOf = new HashMap<>();
    List<TopicPartition> all = new ArrayList<>();
    for (Partition p : partitions) {
      indexOf.put(p.topicPartition(), p.index());
      all.add(p.topicPartition());
    }
    c.assign(all);
    for (Partition p : partitions) {
      seekStart(c, p);
    }
    return indexOf;
  }

  private static void seekStart(KafkaConsumer<byte[], byte[]> c, Partition p) {
    TopicPartition tp = p.topicPartition();
    switch (p.start().kind()) {
      case AFTER -> c.seek(tp, p.start().offset() + 1);
      case OLDEST -> c.seekToBeginning(List.of(tp));
      case UPCOMING -> c.seekToEnd(List.of(tp));
    }
  }

  private void fetch(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Integer> indexOf) {
    Duration pollTimeout = Duration.ofMillis(settings.pollTimeoutMs());
    boolean[] pausedNow = new boolean[byIndex.length];
    Envelope[] scratch = new Envelope[1024];
    long nextRefresh = 0;
    List<Partition> touched = new ArrayList<>();
    long[] touchedPosition = new long[byIndex.length];
    while (!stopped) {
      if (pauseChanged) {
        applyPauses(c, pausedNow);
      }
      ConsumerRecords<byte[], byte[]> records;
      try {
        records = c.poll(pollTimeout);
      } catch (OffsetOutOfRangeException e) {
        resetOutOfRange(c, e);
        continue;
      }
      touched.clear();
      for (TopicPartition tp : records.partitions()) {
        List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
        Partition p = byIndex[indexOf.get(tp)];
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
        if (!offerAll(p.index(), scratch, n)) {
          return; // stopped while the loop was not taking batches
        }
        java.util.Arrays.fill(scratch, 0, n, null);
        touched.add(p);
        touchedPosition[p.index()] = last + 1;
      }
      if (!records.isEmpty()) {
        if (!handoff.flush()) {
          return;
        }
        // Published after the batches they cover (see KafkaSystemConsumer.poll).
        for (Partition p : touched) {
          positions.set(p.index(), touchedPosition[p.index()]);
        }
        wakeLoop();
      }
      long now = System.nanoTime();
      if (now >= nextRefresh) {
        refresh(c);
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

  private Envelope envelope(Partition p, ConsumerRecord<byte[], byte[]> r) {
    int size = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
    StreamSpec stream = p.stream();
    Object key;
    Object value;
    try {
      key = deserialize(stream.keySerde(), r.key());
    } catch (RuntimeException e) {
      return Envelope.unreadable(stream.id(), r.partition(), r.offset(), r.key(), r.value(),
          r.timestamp(), size, new IllegalArgumentException("cannot deserialize the key of topic "
              + r.topic() + " partition " + r.partition() + " offset " + r.offset() + " with "
              + stream.keySerde().getClass().getSimpleName() + ": " + e.getMessage(), e));
    }
    try {
      value = deserialize(stream.valueSerde(), r.value());
    } catch (RuntimeException e) {
      return Envelope.unreadable(stream.id(), r.partition(), r.offset(), r.key(), r.value(),
          r.timestamp(), size, new IllegalArgumentException("cannot deserialize the value of "
              + "topic " + r.topic() + " partition " + r.partition() + " offset " + r.offset()
              + " with " + stream.valueSerde().getClass().getSimpleName() + ": "
              + e.getMessage(), e));
    }
    return new Envelope(stream.id(), r.partition(), r.offset(), key, value, r.timestamp(), size);
  }

  @SuppressWarnings("unchecked") // the stream's serde is declared for its objects
  private static Object deserialize(Serde<?> serde, byte[] bytes) {
    return bytes == null ? null : ((Serde<Object>) serde).fromBytes(bytes);
  }

  private void applyPauses(KafkaConsumer<byte[], byte[]> c, boolean[] pausedNow) {
    pauseChanged = false;
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    for (Partition p : partitions) {
      boolean wanted = pauseWanted.get(p.index()) != 0;
      if (wanted != pausedNow[p.index()]) {
        pausedNow[p.index()] = wanted;
        (wanted ? pause : resume).add(p.topicPartition());
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
      for (Partition p : partitions) {
        if (p.topicPartition().equals(out.getKey())) {
          LOG.warn("offset {} of {} is no longer on Kafka system '{}' (deleted by retention?): "
                  + "resuming at the {} offset (streams.{}.offset.default)", out.getValue(),
              out.getKey(), settings.system(), p.upcomingByDefault() ? "upcoming" : "oldest",
              p.stream().id());
          if (p.upcomingByDefault()) {
            c.seekToEnd(List.of(out.getKey()));
          } else {
            c.seekToBeginning(List.of(out.getKey()));
          }
        }
      }
    }
  }

  /** Heads (for lag) and positions of every partition, from the consumer's own state. */
  private void refresh(KafkaConsumer<byte[], byte[]> c) {
    for (Partition p : partitions) {
      TopicPartition tp = p.topicPartition();
      OptionalLong lag = c.currentLag(tp);
      if (lag.isPresent()) {
        long position;
        try {
          position = c.position(tp, Duration.ZERO);
        } catch (org.apache.kafka.common.errors.TimeoutException unknownYet) {
          continue;
        }
        heads.set(p.index(), position + lag.getAsLong());
        // Every record before the position is in the hand-off already: each poll's batches are
        // flushed before this runs. (A position past the last record means skipped offsets.)
        if (position > positions.get(p.index())) {
          positions.set(p.index(), position);
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
