package io.millrace.bench.jmh;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import io.millrace.batching.handoff.BatchedHandoff;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Control;

/**
 * The micro-batched hand-off alone, across two threads: a producer offers messages round the
 * partitions, a consumer drains batches into a buffer as the loop does (copying the references).
 * The {@code offer} score is messages per second handed over.
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HandoffBenchmark {
  static final int PARTITIONS = 8;
  static final int OFFERS = 64;

  /** Messages per batch. */
  @Param({"256", "1024"})
  public int batchSize;

  private BatchedHandoff handoff;
  private Envelope message;
  private CopyingSink sink;
  private Envelope[] run;

  @Setup(Level.Iteration)
  public void setUp() {
    handoff = new BatchedHandoff(PARTITIONS, batchSize, 64, 1_000_000, System::nanoTime);
    message = new Envelope("events", 0, 0, null, new byte[100], -1, 100);
    sink = new CopyingSink(batchSize * 64);
    run = new Envelope[OFFERS];
    java.util.Arrays.fill(run, message);
  }

  /**
   * Offers {@link #OFFERS} messages one by one (each a separate {@code tryOffer}); the loop only
   * amortises JMH's own per-call overhead, which is not part of the hand-off.
   */
  @Benchmark
  @Group("handoff")
  @GroupThreads(1)
  @OperationsPerInvocation(OFFERS)
  public void offer(Control control, ProducerCursor cursor) {
    for (int i = 0; i < OFFERS; i++) {
      int index = cursor.next++ & (PARTITIONS - 1);
      while (!handoff.tryOffer(index, message)) {
        if (control.stopMeasurement) {
          return; // the consumer may have stopped: don't wait for room that never comes
        }
        Thread.onSpinWait();
      }
    }
  }

  @Benchmark
  @Group("handoff")
  @GroupThreads(1)
  public int drain() {
    return handoff.drain(sink);
  }

  /**
   * Offers runs of {@link #OFFERS} messages of one partition at a time, as a fetch thread holding
   * a fetch response does ({@link BatchedHandoff#tryOfferAll}).
   */
  @Benchmark
  @Group("handoffRuns")
  @GroupThreads(1)
  @OperationsPerInvocation(OFFERS)
  public void offerRun(Control control, ProducerCursor cursor) {
    int index = cursor.next++ & (PARTITIONS - 1);
    int taken = 0;
    while ((taken += handoff.tryOfferAll(index, run, taken, OFFERS - taken)) < OFFERS) {
      if (control.stopMeasurement) {
        return;
      }
      Thread.onSpinWait();
    }
  }

  @Benchmark
  @Group("handoffRuns")
  @GroupThreads(1)
  public int drainRuns() {
    return handoff.drain(sink);
  }

  /**
   * The producer's partition cursor, in its own thread-scoped state: kept in the shared group
   * state it would sit on a cache line the consumer reads, and every offer would bounce it.
   */
  @State(Scope.Thread)
  public static class ProducerCursor {
    int next;
  }

  /** Copies the references as a partition buffer would, into a ring it reuses. */
  static final class CopyingSink implements BatchSink {
    private final Envelope[] ring;
    private int position;
    long received;

    CopyingSink(int capacity) {
      ring = new Envelope[capacity];
    }

    @Override
    public void accept(int index, Envelope[] messages, int from, int count) {
      if (position + count > ring.length) {
        position = 0;
      }
      System.arraycopy(messages, from, ring, position, count);
      position += count;
      received += count;
    }

    @Override
    public void endOfStream(int index) {}

    @Override
    public void head(int index, long upcomingOffset) {}
  }
}
