package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.system.StreamSpec;
import io.millrace.api.system.SystemProducer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Changelog batches sent off the loop thread: order per partition, drain, failures, fallback. */
class ChangelogSenderTest {
  /** Records each partition's values in arrival order, and the threads that sent them. */
  private static final class Recording implements SystemProducer {
    final boolean concurrent;
    final Map<Integer, List<Long>> byPartition = new ConcurrentHashMap<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    volatile long failAt = -1;

    Recording(boolean concurrent) {
      this.concurrent = concurrent;
    }

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      long v = ByteBuffer.wrap((byte[]) value).getLong();
      if (v == failAt) {
        throw new IllegalStateException("a record sent to topic counts-changelog partition "
            + partition + " was not acknowledged");
      }
      byPartition.computeIfAbsent(partition, p -> new CopyOnWriteArrayList<>()).add(v);
      if (threads.isEmpty() || !threads.get(threads.size() - 1).equals(Thread.currentThread()
          .getName())) {
        threads.add(Thread.currentThread().getName());
      }
    }

    @Override
    public void flush() {}

    @Override
    public boolean concurrentSends() {
      return concurrent;
    }

    @Override
    public void stop() {}
  }

  private static byte[] bytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void batchesLeaveTheLoopInOrderAndDrainReturnsOnceAllAreInTheProducer() {
    Recording producer = new Recording(true);
    int partitions = 5;
    int batches = 2_000;
    try (ChangelogSender sender = ChangelogSender.threaded("test-changelog")) {
      List<ChangelogWriter> writers = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        writers.add(new ChangelogWriter(producer, 0, p, sender));
      }
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      long next = 0;
      for (int b = 0; b < batches; b++) {
        keys.clear(); // the caller reuses its lists, as CachedStore does
        values.clear();
        for (int i = 0; i < 7; i++) {
          keys.add(bytes(i));
          values.add(bytes(next++));
        }
        writers.get(b % partitions).send(keys, values);
        if (b % 500 == 499) {
          sender.drain();
          long total = producer.byPartition.values().stream().mapToLong(List::size).sum();
          assertThat(total).as("after a drain, every record is in the producer").isEqualTo(next);
        }
      }
      sender.drain();
    }
    for (List<Long> values : producer.byPartition.values()) {
      assertThat(values).isSorted();
    }
    assertThat(producer.threads).containsExactly("test-changelog");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aFailedSendFailsTheNextDrainAndNothingAfterItIsSent() {
    Recording producer = new Recording(true);
    producer.failAt = 30;
    try (ChangelogSender sender = ChangelogSender.threaded("test-changelog")) {
      ChangelogWriter writer = new ChangelogWriter(producer, 0, 0, sender);
      assertThatThrownBy(() -> {
        for (long v = 0; v < 1_000; v++) {
          writer.send(List.of(bytes(v)), List.of(bytes(v)));
        }
        sender.drain();
      }).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("counts-changelog partition 0 was not acknowledged");
      assertThat(producer.byPartition.get(0)).hasSize(30);
    }
  }

  @Test
  void aProducerThatTakesSendsOnlyFromTheLoopGetsThemThere() {
    Recording producer = new Recording(false);
    try (ChangelogSender sender = ChangelogSender.threaded("test-changelog")) {
      new ChangelogWriter(producer, 0, 0, sender).send(List.of(bytes(1)), List.of(bytes(1)));
      assertThat(producer.byPartition.get(0)).containsExactly(1L);
      sender.drain();
    }
    assertThat(producer.threads).containsExactly(Thread.currentThread().getName());
  }
}
