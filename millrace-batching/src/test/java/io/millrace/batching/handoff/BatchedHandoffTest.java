package io.millrace.batching.handoff;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class BatchedHandoffTest {
  private static final long MS = 1_000_000L;

  /** Records what the consumer side hands over, as readable events. */
  private static final class RecordingSink implements BatchSink {
    final List<String> events = new ArrayList<>();

    @Override
    public void accept(int index, Envelope[] messages, int from, int count) {
      StringBuilder b = new StringBuilder("p").append(index).append(":");
      for (int i = from; i < from + count; i++) {
        b.append(i == from ? "" : ",").append(messages[i].offset());
      }
      events.add(b.toString());
    }

    @Override
    public void endOfStream(int index) {
      events.add("end p" + index);
    }

    @Override
    public void head(int index, long upcomingOffset) {}
  }

  private static Envelope message(int partition, long offset) {
    return new Envelope("s", partition, offset, null, null, -1, 1);
  }

  @Test
  void batchLeavesWhenFull() {
    AtomicLong clock = new AtomicLong();
    BatchedHandoff handoff = new BatchedHandoff(2, 4, 8, 10 * MS, clock::get);
    RecordingSink sink = new RecordingSink();
    for (int i = 0; i < 3; i++) {
      assertThat(handoff.offer(0, message(0, i))).isTrue();
    }
    assertThat(handoff.hasBatches()).isFalse();
    assertThat(handoff.drain(sink)).isZero();
    handoff.offer(0, message(0, 3));
    assertThat(handoff.hasBatches()).isTrue();
    assertThat(handoff.drain(sink)).isEqualTo(4);
    assertThat(sink.events).containsExactly("p0:0,1,2,3");
  }

  @Test
  void batchLeavesAfterTheLingerTime() {
    AtomicLong clock = new AtomicLong(100 * MS);
    BatchedHandoff handoff = new BatchedHandoff(2, 100, 8, 5 * MS, clock::get);
    RecordingSink sink = new RecordingSink();
    handoff.offer(0, message(0, 0));
    clock.addAndGet(2 * MS);
    handoff.offer(1, message(1, 0));
    handoff.offer(0, message(0, 1));

    clock.addAndGet(2 * MS); // partition 0's batch has waited 4 ms
    assertThat(handoff.flushLingering()).isTrue();
    assertThat(handoff.drain(sink)).isZero();

    clock.addAndGet(MS); // 5 ms: partition 0 leaves, partition 1 (3 ms) stays
    handoff.flushLingering();
    assertThat(handoff.drain(sink)).isEqualTo(2);
    assertThat(sink.events).containsExactly("p0:0,1");

    clock.addAndGet(2 * MS);
    handoff.flushLingering();
    handoff.drain(sink);
    assertThat(sink.events).containsExactly("p0:0,1", "p1:0");
  }

  @Test
  void lingerIsTimedFromTheBatchsFirstMessage() {
    AtomicLong clock = new AtomicLong();
    BatchedHandoff handoff = new BatchedHandoff(1, 100, 8, 5 * MS, clock::get);
    RecordingSink sink = new RecordingSink();
    handoff.offer(0, message(0, 0));
    clock.addAndGet(5 * MS);
    handoff.flushLingering();
    handoff.drain(sink);
    // A new batch starts its own linger.
    handoff.offer(0, message(0, 1));
    clock.addAndGet(4 * MS);
    handoff.flushLingering();
    assertThat(handoff.drain(sink)).isZero();
    clock.addAndGet(MS);
    handoff.flushLingering();
    handoff.drain(sink);
    assertThat(sink.events).containsExactly("p0:0", "p0:1");
  }

  @Test
  void flushSendsEveryOpenBatchWhenIdle() {
    AtomicLong clock = new AtomicLong();
    BatchedHandoff handoff = new BatchedHandoff(3, 100, 8, TimeUnit.SECONDS.toNanos(60),
        clock::get);
    RecordingSink sink = new RecordingSink();
    handoff.offer(2, message(2, 7));
    handoff.offer(0, message(0, 3));
    handoff.offer(2, message(2, 8));
    assertThat(handoff.flushLingering()).isTrue();
    assertThat(handoff.drain(sink)).isZero();
    assertThat(handoff.flush()).isTrue();
    assertThat(handoff.drain(sink)).isEqualTo(3);
    assertThat(sink.events).containsExactlyInAnyOrder("p0:3", "p2:7,8");
    // Nothing open any more: another flush sends nothing.
    handoff.flush();
    assertThat(handoff.drain(sink)).isZero();
  }

  @Test
  void endOfStreamArrivesAfterThePartitionsMessages() {
    AtomicLong clock = new AtomicLong();
    BatchedHandoff handoff = new BatchedHandoff(2, 2, 8, 10 * MS, clock::get);
    RecordingSink sink = new RecordingSink();
    for (int i = 0; i < 5; i++) {
      handoff.offer(0, message(0, i));
    }
    handoff.offer(1, message(1, 0));
    assertThat(handoff.endOfStream(0)).isTrue();
    assertThat(handoff.endOfStream(1)).isTrue();
    assertThat(handoff.drain(sink)).isEqualTo(6);
    assertThat(sink.events).containsExactly("p0:0,1", "p0:2,3", "p0:4", "end p0", "p1:0",
        "end p1");
  }

  @Test
  void endOfStreamWithoutAnOpenBatchSendsOnlyTheEnd() {
    AtomicLong clock = new AtomicLong();
    BatchedHandoff handoff = new BatchedHandoff(1, 2, 8, 10 * MS, clock::get);
    RecordingSink sink = new RecordingSink();
    handoff.offer(0, message(0, 0));
    handoff.offer(0, message(0, 1)); // full: leaves
    handoff.endOfStream(0);
    handoff.drain(sink);
    assertThat(sink.events).containsExactly("p0:0,1", "end p0");
  }

  @Test
  void batchesAreReusedWithoutKeepingOldMessages() {
    AtomicLong clock = new AtomicLong();
    BatchedHandoff handoff = new BatchedHandoff(1, 3, 4, 10 * MS, clock::get);
    RecordingSink sink = new RecordingSink();
    for (int round = 0; round < 10; round++) {
      handoff.offer(0, message(0, 2 * round));
      handoff.offer(0, message(0, 2 * round + 1));
      handoff.flush();
      handoff.drain(sink);
    }
    assertThat(sink.events).hasSize(10);
    assertThat(sink.events.get(9)).isEqualTo("p0:18,19");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void fullQueueMakesTheProducerWaitAndCloseReleasesIt() throws Exception {
    AtomicLong clock = new AtomicLong();
    int queueBatches = 2;
    BatchedHandoff handoff = new BatchedHandoff(1, 1, queueBatches, 10 * MS, clock::get);
    AtomicLong accepted = new AtomicLong();
    AtomicReference<Boolean> lastOffer = new AtomicReference<>();
    Thread producer = new Thread(() -> {
      for (int i = 0; i < 1_000; i++) {
        boolean ok = handoff.offer(0, message(0, i)); // batch size 1: every offer publishes
        if (!ok) {
          lastOffer.set(false);
          return;
        }
        accepted.incrementAndGet();
      }
      lastOffer.set(true);
    }, "handoff-producer");
    producer.start();
    // Nobody drains: the producer fills the queue, then backs off into parking.
    while (producer.getState() != Thread.State.TIMED_WAITING && producer.isAlive()) {
      Thread.onSpinWait();
    }
    assertThat(producer.isAlive()).as("a producer facing a full queue waits").isTrue();
    long waitingAt = accepted.get();
    // JCTools rounds the queue up to a power of two of at least 4 batches, and one full batch
    // may wait in its partition's open slot: the bound is the queue plus one batch per partition.
    assertThat(waitingAt).isBetween((long) queueBatches, 4L + 1);
    handoff.close();
    producer.join();
    assertThat(lastOffer.get()).as("the waiting offer gives up once closed").isFalse();
    assertThat(accepted.get()).isEqualTo(waitingAt);
    assertThat(handoff.offer(0, message(0, 999))).isFalse();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS) // sized for both cores taken by others
  void oneProducerAndOneConsumerKeepEveryPartitionInOrderUnderBackPressure() throws Exception {
    int partitions = 97;
    // Enough for the queue to fill thousands of times; more only lengthens the run on a busy machine.
    int messages = 600_000;
    int batchSize = 64;
    int queueBatches = 4;
    BatchedHandoff handoff = new BatchedHandoff(partitions, batchSize, queueBatches, 20_000,
        System::nanoTime);
    AtomicLong produced = new AtomicLong();
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();

    Thread producer = new Thread(() -> {
      try {
        long[] next = new long[partitions];
        long seed = 1;
        for (int i = 0; i < messages; i++) {
          // An uneven spread: some partitions get runs, others single messages.
          seed = seed * 6364136223846793005L + 1442695040888963407L;
          int p = (int) ((seed >>> 33) % partitions);
          if (!handoff.offer(p, new Envelope("s", p, next[p]++, null, null, -1, 1))) {
            throw new AssertionError("closed while offering");
          }
          if ((i & 1023) == 1023) {
            produced.lazySet(i + 1);
            handoff.flushLingering();
          }
        }
        for (int p = 0; p < partitions; p++) {
          handoff.endOfStream(p);
        }
        produced.set(messages);
      } catch (Throwable t) {
        producerFailure.set(t);
      }
    }, "handoff-producer");

    long[] expected = new long[partitions];
    boolean[] ended = new boolean[partitions];
    long[] counts = new long[3]; // received, ends, worst backlog
    List<String> errors = new ArrayList<>();
    BatchSink sink = new BatchSink() {
      @Override
      public void accept(int index, Envelope[] batch, int from, int count) {
        if (ended[index] && errors.size() < 10) {
          errors.add("message after end of partition " + index);
        }
        if (count > batchSize && errors.size() < 10) {
          errors.add("batch of " + count + " > batch size");
        }
        for (int i = from; i < from + count; i++) {
          Envelope e = batch[i];
          if ((e.partition() != index || e.offset() != expected[index]) && errors.size() < 10) {
            errors.add("partition " + index + ": expected offset " + expected[index] + ", got "
                + e.partition() + "@" + e.offset());
          }
          expected[index] = e.offset() + 1;
        }
        counts[0] += count;
        // What the producer has offered but the consumer has not received is bounded by the
        // queue, the open batches and the batch being published (produced lags behind reality).
        counts[2] = Math.max(counts[2], produced.get() - counts[0]);
      }

      @Override
      public void endOfStream(int index) {
        if (ended[index] && errors.size() < 10) {
          errors.add("partition " + index + " ended twice");
        }
        ended[index] = true;
        counts[1]++;
      }

      @Override
      public void head(int index, long upcomingOffset) {}
    };

    producer.start();
    int drains = 0;
    while (counts[1] < partitions && producerFailure.get() == null) {
      if (handoff.drain(sink) == 0) {
        // Yield, not spin: on a machine whose cores are taken the producer needs this one.
        Thread.yield();
      }
      if ((++drains & 4095) == 0) {
        // Now and then the consumer falls behind, so the producer meets a full queue.
        for (int k = 0; k < 2_000; k++) {
          Thread.onSpinWait();
        }
      }
    }
    producer.join();
    handoff.drain(sink);

    assertThat(producerFailure.get()).isNull();
    assertThat(errors).isEmpty();
    assertThat(counts[0]).as("every message received exactly once").isEqualTo(messages);
    assertThat(counts[1]).isEqualTo(partitions);
    assertThat(expected).as("per partition, offsets 0..n-1 arrived").satisfies(e -> {
      long sum = 0;
      for (long n : e) {
        sum += n;
      }
      assertThat(sum).isEqualTo(messages);
    });
    long bound = (long) (queueBatches + partitions + 1) * batchSize;
    assertThat(counts[2]).as("backlog bounded by the queue").isLessThanOrEqualTo(bound);
    assertThat(handoff.hasBatches()).isFalse();
  }
}
