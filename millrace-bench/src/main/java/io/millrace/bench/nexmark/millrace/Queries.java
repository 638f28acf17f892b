package io.millrace.bench.nexmark.millrace;

import io.millrace.api.store.KeyValue;
import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.TopAuctions;
import io.millrace.bench.nexmark.events.BidList;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EndOfInput;
import io.millrace.dsl.Grouped;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.Windows;
import java.time.Duration;
import java.util.List;

/**
 * The Nexmark queries Millrace's DSL can express today, one {@link StreamApplication} each (a
 * DSL application takes no parameters). They write stream {@code out}: q0 the bids as read; the
 * others text lines ({@link Lines}), the windowed ones keyed by window start.
 */
public final class Queries {
  private Queries() {}

  /** q0: every bid, unchanged. */
  public static final class Q0 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Sources.bids(graph).filter((k, b) -> !EndOfInput.is(b))
          .to("out", new LongSerde(), new BidSerde());
    }
  }

  /** q1: every bid, its price in euros. */
  public static final class Q1 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Sources.bids(graph).filter((k, b) -> !EndOfInput.is(b))
          .mapValues(b -> Lines.q1(b, Lines.euroMilliCents(b.price())))
          .to("out", new LongSerde(), new StringSerde());
    }
  }

  /** q2: bids on auctions whose id is a multiple of 123. */
  public static final class Q2 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Sources.bids(graph).filter((k, b) -> !EndOfInput.is(b) && b.auction() % 123 == 0)
          .mapValues(b -> Lines.q2(b.auction(), b.price()))
          .to("out", new LongSerde(), new StringSerde());
    }
  }

  /**
   * q5: bids per auction in hopping windows (10 s, every 2 s) on the bids' own key (no
   * repartition), then per window start the auctions with the most (a running aggregate: its
   * last update per window is the result).
   */
  public static final class Q5 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Sources.bids(graph)
          .groupByKey(Grouped.with(new LongSerde(), new BidSerde()))
          .windowedBy(Windows.hopping(Duration.ofMillis(Lines.WINDOW_MS),
              Duration.ofMillis(Lines.SLIDE_MS)).grace(Duration.ZERO))
          .count(Stored.<Long, Long>as("q5-counts").withKeySerde(new LongSerde()))
          .map((w, n) -> new KeyValue<>(w.start(), new long[] {w.key(), n}))
          .groupByKey(Grouped.with(new LongSerde(), new TopAuctionsSerde()))
          .aggregate(Stored.<Long, long[]>as("q5-top").withKeySerde(new LongSerde())
                  .withValueSerde(new TopAuctionsSerde()), TopAuctions::empty,
              (start, counted, top) -> TopAuctions.with(top, counted[0], counted[1]))
          .map((start, top) -> new KeyValue<>(Long.toString(start), TopAuctions.lines(start, top)))
          .to("out", new StringSerde(), new StringSerde());
    }
  }

  /**
   * q7: the highest bids per 10 s tumbling window: first per auction and window on the bids' own
   * key (no repartition before the window, whose watermark would follow the fastest upstream
   * task, a known limit of the DSL), then per window start over a re-key (a running aggregate:
   * its last update per window is the result).
   */
  public static final class Q7 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Sources.bids(graph)
          .groupByKey(Grouped.with(new LongSerde(), new BidSerde()))
          .windowedBy(Windows.tumbling(Duration.ofMillis(Lines.WINDOW_MS)).grace(Duration.ZERO))
          .aggregate(Stored.<Long, List<Bid>>as("q7-auction-highest")
                  .withKeySerde(new LongSerde()).withValueSerde(new BidListSerde()), List::of,
              (auction, b, highest) -> BidList.withHighest(highest, b))
          .map((w, highest) -> new KeyValue<>(w.start(), highest))
          .groupByKey(Grouped.with(new LongSerde(), new BidListSerde()))
          .aggregate(Stored.<Long, List<Bid>>as("q7-highest").withKeySerde(new LongSerde())
                  .withValueSerde(new BidListSerde()), List::of,
              (start, some, highest) -> BidList.merge(highest, some))
          .map((start, highest) -> new KeyValue<>(Long.toString(start),
              Lines.q7(start, highest)))
          .to("out", new StringSerde(), new StringSerde());
    }
  }
}
