package io.millrace.core.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.core.testing.TestSystemContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link SystemConsumer} must do, run against each implementation (a subclass per
 * system: memory, file, Kafka). Streams are written before a consumer reads them; partition
 * {@code p} of a stream holds the values {@code p<p>-0}, {@code p<p>-1}, ... in order.
 *
 * <p>The tests that matter most for jobs whose tasks move: a partition registered while the
 * consumer runs is read; once a partition is unregistered, nothing more of it is handed over,
 * not even what was fetched before; and an index given to another partition hands over only the
 * new one's messages.
 */
public abstract class SystemConsumerContract {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final List<SystemConsumer> started = new ArrayList<>();

  /** Makes a stream of {@code partitions} partitions, each holding {@code messages} values. */
  protected abstract StreamSpec stream(String name, int partitions, int messages) throws Exception;

  /** A new consumer of the system, not started. */
  protected abstract SystemConsumer newConsumer();

  /** A context for the system's parts, with the system's own keys. */
  protected static SystemContext context(String system, Map<String, String> systemConfig) {
    return new TestSystemContext(system, "consumer-contract", 0, systemConfig, Map.of(), null);
  }

  @AfterEach
  void stopConsumers() {
    for (SystemConsumer consumer : started) {
      consumer.stop();
    }
    started.clear();
  }

  private SystemConsumer start(SystemConsumer consumer) {
    consumer.start();
    started.add(consumer);
    return consumer;
  }

  /** What a consumer handed over, in order, as (index, envelope) pairs. */
  protected static final class Recorder implements BatchSink {
    final List<Integer> indices = new ArrayList<>();
    final List<Envelope> envelopes = new ArrayList<>();

    @Override
    public void accept(int index, Envelope[] messages, int from, int count) {
      for (int i = from; i < from + count; i++) {
        indices.add(index);
        envelopes.add(messages[i]);
      }
    }

    @Override
    public void endOfStream(int index) {}

    @Override
    public void head(int index, long upcomingOffset) {}

    /** The values handed over for an index, in order. */
    List<Object> values(int index) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < indices.size(); i++) {
        if (indices.get(i) == index) {
          values.add(envelopes.get(i).value());
        }
      }
      return values;
    }

    /** The envelopes handed over for an index, in order. */
    List<Envelope> of(int index) {
      List<Envelope> of = new ArrayList<>();
      for (int i = 0; i < indices.size(); i++) {
        if (indices.get(i) == index) {
          of.add(envelopes.get(i));
        }
      }
      return of;
    }
  }

  /** Polls the given indices, a few messages at a time, until {@code done} holds. */
  private static void pollUntil(SystemConsumer consumer, int[] indices, int maxMessages,
      Recorder sink, String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      consumer.poll(indices, indices.length, maxMessages, sink, 10);
    }
  }

  private static List<Object> values(int partition, int from, int to) {
    List<Object> values = new ArrayList<>();
    for (int i = from; i < to; i++) {
      values.add("p" + partition + "-" + i);
    }
    return values;
  }

  @Test
  void handsOverEachRegisteredPartitionInOrderUnderItsIndex() throws Exception {
    StreamSpec s = stream("contract-order", 2, 20);
    SystemConsumer consumer = newConsumer();
    consumer.register(5, s, 0, StartPosition.oldest());
    consumer.register(2, s, 1, StartPosition.oldest());
    start(consumer);
    Recorder sink = new Recorder();
    pollUntil(consumer, new int[] {5, 2}, 7, sink, "both partitions",
        () -> sink.values(5).size() >= 20 && sink.values(2).size() >= 20);
    assertThat(sink.values(5)).isEqualTo(values(0, 0, 20));
    assertThat(sink.values(2)).isEqualTo(values(1, 0, 20));
    for (Envelope e : sink.of(5)) {
      assertThat(e.partition()).isZero();
    }
  }

  @Test
  void resumesAfterACheckpointedOffset() throws Exception {
    StreamSpec s = stream("contract-after", 1, 10);
    SystemConsumer first = newConsumer();
    first.register(0, s, 0, StartPosition.oldest());
    start(first);
    Recorder all = new Recorder();
    pollUntil(first, new int[] {0}, 100, all, "every message", () -> all.values(0).size() >= 10);
    long checkpointed = all.of(0).get(3).offset();

    SystemConsumer second = newConsumer();
    second.register(0, s, 0, StartPosition.after(checkpointed));
    start(second);
    Recorder rest = new Recorder();
    pollUntil(second, new int[] {0}, 100, rest, "the messages after the checkpoint",
        () -> rest.values(0).size() >= 6);
    assertThat(rest.values(0)).isEqualTo(values(0, 4, 10));
  }

  @Test
  void aPartitionRegisteredWhileRunningIsRead() throws Exception {
    StreamSpec s = stream("contract-late", 2, 15);
    SystemConsumer consumer = newConsumer();
    consumer.register(0, s, 0, StartPosition.oldest());
    start(consumer);
    Recorder sink = new Recorder();
    pollUntil(consumer, new int[] {0}, 100, sink, "partition 0",
        () -> sink.values(0).size() >= 15);

    consumer.register(1, s, 1, StartPosition.oldest());
    pollUntil(consumer, new int[] {0, 1}, 100, sink, "partition 1, registered while running",
        () -> sink.values(1).size() >= 15);
    assertThat(sink.values(1)).isEqualTo(values(1, 0, 15));
    assertThat(sink.values(0)).isEqualTo(values(0, 0, 15));
  }

  @Test
  void nothingOfAnUnregisteredPartitionIsHandedOverAfterwards() throws Exception {
    StreamSpec s = stream("contract-gone", 2, 2_000);
    SystemConsumer consumer = newConsumer();
    consumer.register(0, s, 0, StartPosition.oldest());
    consumer.register(1, s, 1, StartPosition.oldest());
    start(consumer);
    Recorder sink = new Recorder();
    // A little of partition 1, so that more of it is fetched (or buffered) but not handed over.
    pollUntil(consumer, new int[] {0, 1}, 3, sink, "the first of partition 1",
        () -> !sink.values(1).isEmpty());
    consumer.unregister(1);
    int before = sink.values(1).size();

    pollUntil(consumer, new int[] {0}, 50, sink, "all of partition 0",
        () -> sink.values(0).size() >= 2_000);
    assertThat(sink.values(1)).as("partition 1 after it was unregistered").hasSize(before);
    assertThat(sink.values(0)).isEqualTo(values(0, 0, 2_000));
  }

  @Test
  void anIndexGivenToAnotherPartitionHandsOverOnlyTheNewOnesMessages() throws Exception {
    StreamSpec a = stream("contract-reuse-a", 1, 2_000);
    StreamSpec b = stream("contract-reuse-b", 1, 500);
    SystemConsumer consumer = newConsumer();
    consumer.register(0, a, 0, StartPosition.oldest());
    start(consumer);
    Recorder sink = new Recorder();
    pollUntil(consumer, new int[] {0}, 3, sink, "the first of stream a",
        () -> !sink.values(0).isEmpty());
    consumer.unregister(0);
    int fromA = sink.envelopes.size();

    consumer.register(0, b, 0, StartPosition.oldest());
    pollUntil(consumer, new int[] {0}, 50, sink, "all of stream b",
        () -> sink.envelopes.size() - fromA >= 500);
    List<Object> after = new ArrayList<>();
    for (Envelope e : sink.envelopes.subList(fromA, sink.envelopes.size())) {
      assertThat(e.stream()).as("stream of a message handed over after the switch")
          .isEqualTo(b.id());
      after.add(e.value());
    }
    assertThat(after).isEqualTo(values(0, 0, 500));
  }
}
