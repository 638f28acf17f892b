package io.millrace.core.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.choose.Chooser;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConsumerMultiplexerTest {
  private static final long MS = 1_000_000L;

  /** A clock the test moves by hand. */
  private static final class ManualClock implements Clock {
    long now = 1_000 * MS;

    @Override
    public long nanoTime() {
      return now;
    }

    void advance(long nanos) {
      now += nanos;
    }
  }

  /** A consumer with a queue of messages per partition, recording every call. */
  private static final class FakeConsumer implements SystemConsumer {
    final List<ArrayDeque<Envelope>> pending = new ArrayList<>();
    final List<int[]> polls = new ArrayList<>();
    final List<Long> timeouts = new ArrayList<>();
    final List<Integer> pausedCalls = new ArrayList<>();
    final List<Integer> resumedCalls = new ArrayList<>();
    final boolean[] infinite;
    final long[] nextOffset;
    final int messageBytes;

    FakeConsumer(int partitions, int messageBytes) {
      for (int p = 0; p < partitions; p++) {
        pending.add(new ArrayDeque<>());
      }
      infinite = new boolean[partitions];
      nextOffset = new long[partitions];
      this.messageBytes = messageBytes;
    }

    void add(int partition, int count) {
      for (int i = 0; i < count; i++) {
        pending.get(partition).add(message(partition));
      }
    }

    private Envelope message(int partition) {
      long offset = nextOffset[partition]++;
      return new Envelope("s", partition, offset, null, "m" + offset, -1, messageBytes);
    }

    /** Indices of the last poll, or null if none since the last call. */
    int[] lastPoll() {
      return polls.isEmpty() ? null : polls.get(polls.size() - 1);
    }

    @Override
    public void register(int index, StreamSpec stream, int partition, StartPosition start) {}

    @Override
    public void start() {}

    @Override
    public int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis) {
      polls.add(Arrays.copyOf(indices, count));
      timeouts.add(timeoutMillis);
      int handed = 0;
      for (int i = 0; i < count; i++) {
        int p = indices[i];
        ArrayDeque<Envelope> queue = pending.get(p);
        if (infinite[p]) {
          while (queue.size() < maxMessages) {
            queue.add(message(p));
          }
        }
        int n = Math.min(maxMessages, queue.size());
        if (n == 0) {
          continue;
        }
        Envelope[] batch = new Envelope[n];
        for (int j = 0; j < n; j++) {
          batch[j] = queue.poll();
        }
        sink.accept(p, batch, 0, n);
        handed += n;
      }
      return handed;
    }

    @Override
    public void pause(int index) {
      pausedCalls.add(index);
    }

    @Override
    public void resume(int index) {
      resumedCalls.add(index);
    }

    @Override
    public void stop() {}
  }

  private final ManualClock clock = new ManualClock();
  private final List<Integer> finished = new ArrayList<>();
  private Chooser chooser;

  @BeforeEach
  void reset() {
    finished.clear();
  }

  private final PartitionTable table = new PartitionTable();

  private ConsumerMultiplexer mux(FakeConsumer consumer, long[] intervals, int maxMessages,
      long maxBytes) {
    int n = intervals.length;
    chooser = new Chooser();
    ConsumerMultiplexer mux = new ConsumerMultiplexer(table, maxMessages, maxBytes, chooser,
        new ConsumerMultiplexer.Listener() {
          @Override
          public void finished(PartitionState partition) {
            finished.add(partition.index());
          }
        });
    List<PartitionState> added = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      PartitionSpec spec = new PartitionSpec(new StreamPartition("fake", "s", p),
          new StreamSpec("s", "s", null, null), consumer, StartPosition.oldest(),
          CheckpointStore.NONE, 0, intervals[p], false, -1, 0, -1);
      PartitionState state = new PartitionState(table.nextIndex(), spec, null,
          mux.initialBufferCapacity());
      table.add(state);
      chooser.add(p, 0, false);
      added.add(state);
    }
    mux.add(added);
    return mux;
  }

  private static long[] intervals(int n, long each) {
    long[] result = new long[n];
    Arrays.fill(result, each);
    return result;
  }

  /** Delivers (and drops) every buffered message of a partition, as the loop would. */
  private List<Envelope> drain(ConsumerMultiplexer mux, int p) {
    List<Envelope> out = new ArrayList<>();
    PartitionBuffer buffer = table.get(p).buffer;
    while (!buffer.isEmpty()) {
      out.add(buffer.poll());
    }
    mux.drained(table.get(p));
    return out;
  }

  private int buffered(int p) {
    return table.get(p).buffered();
  }

  private boolean isPaused(int p) {
    return table.get(p).paused;
  }

  private int refill(ConsumerMultiplexer mux) throws InterruptedException {
    return mux.refill(clock.nanoTime(), 7);
  }

  @Test
  void pollsOnlyPartitionsWhoseBuffersAreEmpty() throws Exception {
    FakeConsumer consumer = new FakeConsumer(3, 10);
    consumer.add(0, 5);
    consumer.add(1, 5);
    consumer.add(2, 5);
    ConsumerMultiplexer mux = mux(consumer, intervals(3, 0), 2, 1 << 20);

    assertThat(refill(mux)).isEqualTo(6);
    assertThat(consumer.lastPoll()).containsExactly(0, 1, 2);
    assertThat(buffered(0)).isEqualTo(2);

    drain(mux, 1);
    clock.advance(MS);
    refill(mux);
    assertThat(consumer.lastPoll()).containsExactly(1);
    assertThat(buffered(0)).isEqualTo(2);
    assertThat(buffered(1)).isEqualTo(2);

    // Every buffer still holds messages: no poll at all.
    int polls = consumer.polls.size();
    clock.advance(MS);
    assertThat(refill(mux)).isZero();
    assertThat(consumer.polls).hasSize(polls);
  }

  @Test
  void emptyPartitionIsPolledAtMostEveryPollIntervalWhileAnotherHasData() throws Exception {
    FakeConsumer consumer = new FakeConsumer(2, 10);
    consumer.infinite[0] = true; // partition 0 is busy; partition 1 never has anything
    ConsumerMultiplexer mux = mux(consumer, intervals(2, 50 * MS), 100, 1 << 20);

    refill(mux);
    assertThat(consumer.lastPoll()).containsExactly(0, 1);
    assertThat(buffered(0)).isEqualTo(100);
    long firstPoll = clock.nanoTime();

    // Partition 0 still has data: partition 1 is not polled again before 50 ms have passed.
    for (int step = 0; step < 49; step++) {
      clock.advance(MS);
      refill(mux);
    }
    assertThat(consumer.polls).hasSize(1);
    clock.advance(MS);
    refill(mux);
    assertThat(consumer.polls).hasSize(2);
    assertThat(consumer.lastPoll()).containsExactly(1);
    assertThat(consumer.timeouts.get(1)).as("never blocks while others have data").isZero();
    assertThat(clock.nanoTime() - firstPoll).isEqualTo(50 * MS);

    // Over a simulated second, one poll of the empty partition per 50 ms, never more.
    for (int step = 0; step < 1000; step++) {
      clock.advance(MS);
      refill(mux);
    }
    assertThat(consumer.polls).hasSize(2 + 20);
    for (int i = 1; i < consumer.polls.size(); i++) {
      assertThat(consumer.polls.get(i)).containsExactly(1);
    }
  }

  @Test
  void emptyPartitionsArePolledImmediatelyWhenAllAreEmpty() throws Exception {
    FakeConsumer consumer = new FakeConsumer(2, 10);
    consumer.add(0, 3);
    ConsumerMultiplexer mux = mux(consumer, intervals(2, 50 * MS), 100, 1 << 20);

    refill(mux);
    assertThat(consumer.polls).hasSize(1);
    assertThat(consumer.timeouts.get(0)).as("a lone consumer may block when all are empty")
        .isEqualTo(7);
    drain(mux, 0);
    assertThat(mux.anyBuffered()).isFalse();

    // Nothing buffered anywhere: poll every empty partition at once, interval or not.
    clock.advance(1);
    refill(mux);
    assertThat(consumer.polls).hasSize(2);
    assertThat(consumer.lastPoll()).containsExactly(0, 1);
    clock.advance(1);
    refill(mux);
    assertThat(consumer.polls).hasSize(3);
    assertThat(consumer.timeouts).containsOnly(7L);
  }

  @Test
  void perPartitionIntervalOverridesTheDefault() throws Exception {
    FakeConsumer consumer = new FakeConsumer(3, 10);
    consumer.add(2, 10); // stays buffered (never delivered), so intervals apply to 0 and 1
    // Partition 1 is a real-time stream polled every 5 ms; partition 0 every 50 ms.
    ConsumerMultiplexer mux = mux(consumer, new long[] {50 * MS, 5 * MS, 50 * MS}, 10, 1 << 20);

    refill(mux);
    int[] pollsOf = new int[3];
    for (int step = 0; step < 100; step++) {
      clock.advance(MS);
      refill(mux);
    }
    for (int[] poll : consumer.polls.subList(1, consumer.polls.size())) {
      for (int p : poll) {
        pollsOf[p]++;
      }
    }
    assertThat(pollsOf[1]).as("real-time partition, every 5 ms over 100 ms").isEqualTo(20);
    assertThat(pollsOf[0]).as("default partition, every 50 ms over 100 ms").isEqualTo(2);
  }

  @Test
  void realTimePartitionThatEmptiesBetweenPollsIsPolledOnItsOwnInterval() throws Exception {
    FakeConsumer consumer = new FakeConsumer(3, 10);
    consumer.add(1, 5);  // the real-time partition: a little data now and then
    consumer.add(2, 10); // a bulk partition that stays buffered
    ConsumerMultiplexer mux = mux(consumer, new long[] {50 * MS, MS, 50 * MS}, 100, 1 << 20);

    refill(mux); // all empty: all polled
    clock.advance(MS);
    refill(mux); // partition 0 is the only empty one: next due in 50 ms
    assertThat(consumer.polls).hasSize(1);

    // The real-time partition is delivered and becomes empty; it has new data.
    drain(mux, 1);
    consumer.add(1, 1);
    clock.advance(MS);
    refill(mux);
    // Its interval is 1 ms and its last poll was 2 ms ago: it is due now, not when the
    // bulk partition's 50 ms are up.
    assertThat(consumer.lastPoll()).containsExactly(1);
    assertThat(buffered(1)).isEqualTo(1);
  }

  @Test
  void batchPastMaxBytesPausesThePartitionAndDrainingResumesIt() throws Exception {
    FakeConsumer consumer = new FakeConsumer(2, 40);
    consumer.add(0, 3); // 120 bytes > 100
    consumer.add(1, 2); // 80 bytes: under the cap
    ConsumerMultiplexer mux = mux(consumer, intervals(2, 0), 100, 100);

    refill(mux);
    assertThat(isPaused(0)).isTrue();
    assertThat(isPaused(1)).isFalse();
    assertThat(consumer.pausedCalls).containsExactly(0);

    // The paused partition is not polled while the others are.
    drain(mux, 1);
    consumer.add(0, 5);
    clock.advance(MS);
    refill(mux);
    assertThat(consumer.lastPoll()).containsExactly(1);

    List<Envelope> delivered = drain(mux, 0);
    assertThat(delivered).hasSize(3);
    assertThat(isPaused(0)).isFalse();
    assertThat(consumer.resumedCalls).containsExactly(0);
    clock.advance(MS);
    refill(mux);
    assertThat(consumer.lastPoll()).containsExactly(0, 1);
    assertThat(buffered(0)).isEqualTo(5);
  }

  @Test
  void aPausedPartitionResumesOnceItsTaskHasTakenHalfOfWhatItHeld() throws Exception {
    FakeConsumer consumer = new FakeConsumer(1, 40);
    ConsumerMultiplexer mux = mux(consumer, intervals(1, 0), 100, 100);
    mux.accept(0, batch(consumer, 0, 4), 0, 4); // 160 bytes > 100

    assertThat(isPaused(0)).isTrue();
    take(mux, 0);
    assertThat(isPaused(0)).isTrue(); // 3 of 4 left
    take(mux, 0);
    // 2 of 4 left: fetching resumes now, so the next batch comes before the buffer runs dry.
    assertThat(isPaused(0)).isFalse();
    assertThat(consumer.resumedCalls).containsExactly(0);

    // The estimate of what is left (80 bytes) counts: one more message pauses it again.
    mux.accept(0, batch(consumer, 0, 1), 0, 1);
    assertThat(isPaused(0)).isTrue();
    assertThat(consumer.pausedCalls).containsExactly(0, 0);
  }

  @Test
  void aConsumerThatFillsBuffersAheadStaysWithinTheCapPlusOneBatch() throws Exception {
    // Like Kafka's fetch thread: batches arrive for any partition that is not paused, empty or
    // not, while the task takes a few messages a cycle.
    int messageBytes = 40;
    long maxBytes = 1_000;
    int batch = 7;
    FakeConsumer consumer = new FakeConsumer(2, messageBytes);
    ConsumerMultiplexer mux = mux(consumer, intervals(2, 0), 64, maxBytes);
    java.util.Random random = new java.util.Random(35);
    long[] expected = new long[2];
    int resumesBeforeEmpty = 0;
    for (int cycle = 0; cycle < 20_000; cycle++) {
      for (int p = 0; p < 2; p++) {
        if (!isPaused(p) && random.nextInt(3) == 0) {
          mux.accept(p, batch(consumer, p, batch), 0, batch);
        }
        assertThat((long) buffered(p) * messageBytes).isLessThanOrEqualTo(
            maxBytes + (long) batch * messageBytes);
      }
      int p = random.nextInt(2);
      for (int i = random.nextInt(4); i > 0 && buffered(p) > 0; i--) {
        boolean wasPaused = isPaused(p);
        assertThat(table.get(p).buffer.poll().offset()).isEqualTo(expected[p]++);
        if (table.get(p).buffer.isEmpty()) {
          mux.drained(table.get(p));
        } else {
          mux.delivered(table.get(p));
          if (wasPaused && !isPaused(p)) {
            resumesBeforeEmpty++;
          }
        }
      }
    }
    assertThat(resumesBeforeEmpty).isPositive();
    assertThat(consumer.resumedCalls.size()).isBetween(consumer.pausedCalls.size() - 2,
        consumer.pausedCalls.size());
  }

  private static Envelope[] batch(FakeConsumer consumer, int partition, int count) {
    Envelope[] batch = new Envelope[count];
    for (int i = 0; i < count; i++) {
      batch[i] = consumer.message(partition);
    }
    return batch;
  }

  /** Delivers one buffered message of a partition, as the loop would. */
  private void take(ConsumerMultiplexer mux, int p) {
    table.get(p).buffer.poll();
    if (table.get(p).buffer.isEmpty()) {
      mux.drained(table.get(p));
    } else {
      mux.delivered(table.get(p));
    }
  }

  @Test
  void boundedBuffersUnderASlowTask() throws Exception {
    // A consumer that always has more than the task can take, and a task that takes one message
    // per loop cycle: the buffer never holds more than one poll's worth.
    int maxMessages = 64;
    long maxBytes = 1_000;
    FakeConsumer consumer = new FakeConsumer(2, 100);
    consumer.infinite[0] = true;
    consumer.infinite[1] = true;
    ConsumerMultiplexer mux = mux(consumer, intervals(2, 0), maxMessages, maxBytes);
    long[] expected = new long[2];
    int maxBuffered = 0;
    int pauses = 0;
    for (int cycle = 0; cycle < 10_000; cycle++) {
      clock.advance(MS);
      refill(mux);
      int p = chooser.next();
      assertThat(p).isNotNegative();
      Envelope e = table.get(p).buffer.poll();
      assertThat(e.offset()).isEqualTo(expected[p]++);
      if (table.get(p).buffer.isEmpty()) {
        mux.drained(table.get(p));
      }
      maxBuffered = Math.max(maxBuffered, Math.max(buffered(0), buffered(1)));
      pauses = consumer.pausedCalls.size();
    }
    assertThat(maxBuffered).isLessThanOrEqualTo(maxMessages);
    // Bytes past the cap pause fetching; every pause was matched by a resume once drained.
    assertThat(pauses).isPositive();
    assertThat(consumer.resumedCalls.size()).isBetween(pauses - 2, pauses);
    // Both partitions got turns.
    assertThat(expected[0]).isEqualTo(5_000);
    assertThat(expected[1]).isEqualTo(5_000);
  }

  @Test
  void endOfStreamFinishesAPartitionOnceItsBufferIsDrained() throws Exception {
    FakeConsumer consumer = new FakeConsumer(2, 10);
    consumer.add(0, 2);
    ConsumerMultiplexer mux = mux(consumer, intervals(2, 0), 100, 1 << 20);
    refill(mux);
    mux.endOfStream(0); // ends with messages still buffered
    mux.endOfStream(1); // ends empty: finished at once
    assertThat(finished).containsExactly(1);
    assertThat(mux.activeCount()).isEqualTo(1);

    drain(mux, 0);
    assertThat(finished).containsExactly(1, 0);
    assertThat(mux.activeCount()).isZero();
    mux.endOfStream(0); // repeated: ignored
    assertThat(finished).containsExactly(1, 0);
    int polls = consumer.polls.size();
    clock.advance(MS);
    refill(mux);
    assertThat(consumer.polls).as("finished partitions are never polled").hasSize(polls);
  }
}
