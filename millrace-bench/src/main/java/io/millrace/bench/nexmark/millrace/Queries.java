package io.millrace.bench.nexmark.millrace;

import io.millrace.api.store.KeyValue;
import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.TopAuctions;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.BidList;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EndOfInput;
import io.millrace.bench.nexmark.events.Person;
import io.millrace.dsl.Grouped;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.StreamJoined;
import io.millrace.dsl.Table;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.dsl.window.Windows;
import java.time.Duration;
import java.util.List;

/**
 * The nine Nexmark queries on Millrace's DSL, one {@link StreamApplication} each (a
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
   * q3: sellers in OR, ID or CA (a table by person id) joined with their category-10 auctions
   * (re-keyed by seller, the auction ids per seller a table: either side may come first), a
   * table-table join; per seller its result lines, newline-separated.
   */
  public static final class Q3 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<Long, Person> sellers = Sources.persons(graph)
          .filter((k, p) -> !EndOfInput.is(p) && Lines.Q3_STATES.contains(p.state()))
          .toTable(Stored.<Long, Person>as("q3-sellers").withKeySerde(new LongSerde())
              .withValueSerde(new PersonSerde()));
      Table<Long, String> sold = Sources.auctions(graph)
          .filter((k, a) -> !EndOfInput.is(a) && a.category() == Lines.Q3_CATEGORY)
          .groupBy((k, a) -> a.seller(), Grouped.with(new LongSerde(), new AuctionSerde()))
          .aggregate(Stored.<Long, String>as("q3-sold").withKeySerde(new LongSerde())
                  .withValueSerde(new StringSerde()), () -> "",
              (seller, a, ids) -> ids.isEmpty() ? Long.toString(a.id()) : ids + "," + a.id())
          .toTable();
      sellers.join(sold, Queries::q3Lines, Stored.<Long, String>as("q3-join")
              .withKeySerde(new LongSerde()).withValueSerde(new StringSerde()))
          .toStream()
          .map((seller, lines) -> new KeyValue<>(Long.toString(seller), lines))
          .to("out", new StringSerde(), new StringSerde());
    }
  }

  /** q3's lines of a seller and its auction ids (comma-separated). */
  static String q3Lines(Person seller, String auctionIds) {
    StringBuilder s = new StringBuilder();
    for (String id : auctionIds.split(",")) {
      s.append(s.length() > 0 ? "\n" : "").append(Lines.q3(seller, Long.parseLong(id)));
    }
    return s.toString();
  }

  /**
   * q4: auctions and their bids merged on the auction id (their own key: no repartition), per
   * auction its highest bid between its start and its expiry (either may come first), a table
   * re-grouped by category with an adder and a subtractor (as Kafka Streams' q4): the average
   * (a running aggregate: its last update per category is the result). A winner whose price did
   * not change is not re-grouped.
   */
  public static final class Q4 implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<Long, Object> auctions = Sources.auctions(graph)
          .filter((k, a) -> !EndOfInput.is(a)).mapValues(a -> (Object) a);
      Sources.bids(graph).filter((k, b) -> !EndOfInput.is(b)).mapValues(b -> (Object) b)
          .merge(auctions)
          .groupByKey()
          .aggregate(Stored.<Long, AuctionWinner>as("q4-winners").withKeySerde(new LongSerde())
                  .withValueSerde(new AuctionWinnerSerde()), AuctionWinner::empty,
              (auction, event, winner) -> winner.with(event))
          .toTable()
          .groupBy((auction, w) -> w.hasWinner()
                  ? new KeyValue<>(w.auction().category(), w.highest()) : null,
              Grouped.with(new LongSerde(), new LongSerde()))
          .aggregate(Stored.<Long, long[]>as("q4-averages").withKeySerde(new LongSerde())
                  .withValueSerde(new LongsSerde()), () -> new long[2],
              (category, price, sc) -> new long[] {sc[0] + price, sc[1] + 1},
              (category, price, sc) -> new long[] {sc[0] - price, sc[1] - 1})
          .toStream()
          .map((category, sc) -> new KeyValue<>(Long.toString(category),
              sc[1] == 0 ? null : Lines.q4(category, sc[0] / sc[1])))
          .to("out", new StringSerde(), new StringSerde());
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

  /**
   * q8: persons joined with the auctions they opened (re-keyed by seller) within 10 s either way,
   * a windowed stream-stream join, the pairs in the same tumbling window kept, once per person and
   * window (the line is the key). The grace is Kafka Streams' after a re-key: the auctions come
   * through a repartition, whose watermark follows the fastest upstream task, so a slower task's
   * records may come behind it by however far that task is behind.
   */
  public static final class Q8 implements StreamApplication {
    /** As Kafka Streams' q8 after a re-key; see the class comment. */
    static final Duration GRACE_AFTER_REKEY = Duration.ofMinutes(5);

    @Override
    public void describe(StreamGraph graph) {
      MessageStream<Long, Auction> sold = Sources.auctions(graph)
          .filter((k, a) -> !EndOfInput.is(a))
          .selectKey((k, a) -> a.seller());
      Sources.persons(graph).filter((k, p) -> !EndOfInput.is(p))
          .join(sold, (p, a) -> Lines.tumble(p.dateTime()) == Lines.tumble(a.dateTime())
                  ? Lines.q8(p.id(), p.name(), Lines.tumble(p.dateTime())) : "",
              JoinWindows.of(Duration.ofMillis(Lines.WINDOW_MS)).grace(GRACE_AFTER_REKEY),
              StreamJoined.<Long, Person, Auction>as("q8-join").withKeySerde(new LongSerde())
                  .withValueSerdes(new PersonSerde(), new AuctionSerde()))
          .filter((id, line) -> !line.isEmpty())
          .map((id, line) -> new KeyValue<>(line, line))
          .to("out", new StringSerde(), new StringSerde());
    }
  }

  /**
   * q11: per bidder, the bids of each session (bids less than 10 s apart), re-keyed by bidder
   * (the repartition carries the lowest upstream watermark, so no grace is needed past the
   * sources' out-of-order bound). The DSL's sessions take records at most the gap apart, both
   * ends in, where Flink's (the model's) take them less than the gap apart: event times are whole
   * milliseconds, so a gap of 1 ms less is the same session (Kafka Streams' q11 does the same).
   * A session's line ends at its last bid plus the gap, as Flink's; keyed by bidder and start.
   */
  public static final class Q11 implements StreamApplication {
    /** Flink's 10 s gap, as the DSL's inclusive gap on whole milliseconds; see the class. */
    static final Duration GAP = Duration.ofMillis(Lines.WINDOW_MS - 1);

    @Override
    public void describe(StreamGraph graph) {
      Sources.bids(graph).filter((k, b) -> !EndOfInput.is(b))
          .selectKey((k, b) -> b.bidder())
          .groupByKey(Grouped.with(new LongSerde(), new BidSerde()))
          .windowedBy(Windows.session(GAP).grace(Duration.ZERO))
          .count(Stored.<Long, Long>as("q11-sessions").withKeySerde(new LongSerde()))
          .map((w, n) -> new KeyValue<>(w.key() + "@" + w.start(),
              Lines.q11(w.key(), n, w.start(), w.end() + Lines.WINDOW_MS)))
          .to("out", new StringSerde(), new StringSerde());
    }
  }
}
