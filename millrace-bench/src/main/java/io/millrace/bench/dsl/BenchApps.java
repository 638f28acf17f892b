package io.millrace.bench.dsl;

import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.Windows;
import java.time.Duration;

/**
 * The DSL jobs of {@code bench dsl}; each has a hand-written task beside it doing the same work
 * ({@link StatelessTask}, {@link WindowedCountTask}).
 */
public final class BenchApps {
  /** Tumbling windows of the windowed jobs. */
  static final long WINDOW_MS = 10_000;

  private BenchApps() {}

  /** Whether a payload passes the stateless job's filter: about half of them (a-m of a-z). */
  static boolean kept(byte[] value) {
    return value[0] < 'n';
  }

  /** The re-keyed job's new key: the payload's first two letters (676 keys). */
  static String newKey(byte[] value) {
    return new String(value, 0, 2, java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  /** A count per key of "events" in {@code windows}, into store "counts", to "out". */
  private static void countPerKey(StreamGraph graph, Windows windows) {
    graph.<String, byte[]>stream("events")
        .groupByKey()
        .windowedBy(windows)
        .count(Stored.<String, Long>as("counts").withKeySerde(new StringSerde())
            .withValueSerde(new LongSerde()))
        .to("out");
  }

  /** {@code filter} then {@code mapValues} to an output: no state, no event time. */
  public static final class Stateless implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, byte[]>stream("events")
          .filter((key, value) -> kept(value))
          .mapValues(value -> value.length)
          .to("out");
    }
  }

  /** A count per key in tumbling windows of event time (the records' own timestamps). */
  public static final class WindowedCount implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      countPerKey(graph, Windows.tumbling(Duration.ofMillis(WINDOW_MS)).grace(Duration.ZERO));
    }
  }

  /**
   * A count per key in sliding windows of 10 s (Kafka Streams' sense: a window ending at each
   * record, and one starting just after it), the DSL job only: for the closing of windows.
   */
  public static final class SlidingCount implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      countPerKey(graph, Windows.sliding(Duration.ofMillis(WINDOW_MS)).grace(Duration.ZERO));
    }
  }

  /** As {@link WindowedCount}, after a new key ({@code groupBy}): through a repartition. */
  public static final class RepartitionCount implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, byte[]>stream(Source.of("events"))
          .groupBy((key, value) -> newKey(value))
          .windowedBy(Windows.tumbling(Duration.ofMillis(WINDOW_MS)).grace(Duration.ZERO))
          .count(Stored.<String, Long>as("counts").withKeySerde(new StringSerde())
              .withValueSerde(new LongSerde()))
          .to("out");
    }
  }
}
