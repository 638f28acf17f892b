package io.millrace.bench.peers.nexmark;

import io.millrace.bench.nexmark.AuctionWinner;
import io.millrace.bench.nexmark.InputCounter;
import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.TopAuctions;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.BidList;
import io.millrace.bench.nexmark.events.EndOfInput;
import io.millrace.bench.nexmark.events.Person;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;

/**
 * The nine queries on Kafka Streams' DSL, reading the record timestamps (the event times) and
 * writing {@code out}. Windowed aggregates on the input's own key emit each window once, when it
 * closes ({@code suppress(untilWindowCloses)}), closed by the end markers; joins, sessions after
 * a re-key and re-aggregations are KTables, whose last update per key is their result.
 * ({@code emitStrategy(onWindowClose())} lost the first windows of a hopping count here, so the
 * older suppression is used.)
 */
final class StreamsQueries {
  /** Out-of-order allowance, as Millrace's sources and Flink's watermarks have it. */
  static final Duration GRACE = Duration.ofSeconds(1);
  /**
   * The grace of a join or window after a re-key: a task's stream time is the highest of its
   * partitions', so records of a repartition fed by a slower upstream task come "late" by however
   * far that task is behind (seconds of event time when a backlog is read at full speed); Flink's
   * watermarks take the minimum over channels instead.
   */
  static final Duration GRACE_AFTER_REKEY = Duration.ofMinutes(5);

  private final StreamsBuilder builder = new StreamsBuilder();
  private final Map<String, String> topics;
  private final String out;

  StreamsQueries(Map<String, String> topics, String out) {
    this.topics = topics;
    this.out = out;
  }

  private KStream<Long, Bid> bids() {
    return builder.stream(topics.get("bid"), Consumed.with(Serdes.Long(), StreamsSerdes.bid()))
        .peek((k, v) -> InputCounter.add());
  }

  private KStream<Long, Auction> auctions() {
    return builder.stream(topics.get("auction"),
            Consumed.with(Serdes.Long(), StreamsSerdes.auction()))
        .peek((k, v) -> InputCounter.add());
  }

  private KStream<Long, Person> persons() {
    return builder.stream(topics.get("person"),
            Consumed.with(Serdes.Long(), StreamsSerdes.person()))
        .peek((k, v) -> InputCounter.add());
  }

  private void toOut(KStream<String, String> lines) {
    lines.to(out, Produced.with(Serdes.String(), Serdes.String()));
  }

  StreamsBuilder build(NexmarkQuery query) {
    switch (query) {
      case Q0 -> bids().filter((k, b) -> !EndOfInput.is(b))
          .to(out, Produced.with(Serdes.Long(), StreamsSerdes.bid()));
      case Q1 -> toOut(bids().filter((k, b) -> !EndOfInput.is(b))
          .map((k, b) -> KeyValue.pair(Long.toString(k),
              Lines.q1(b, Lines.euroMilliCents(b.price())))));
      case Q2 -> toOut(bids().filter((k, b) -> !EndOfInput.is(b) && b.auction() % 123 == 0)
          .map((k, b) -> KeyValue.pair(Long.toString(k), Lines.q2(b.auction(), b.price()))));
      case Q3 -> q3();
      case Q4 -> q4();
      case Q5 -> q5();
      case Q7 -> q7();
      case Q8 -> q8();
      case Q11 -> q11();
      default -> throw new IllegalArgumentException(query.label());
    }
    return builder;
  }

  /** Sellers (a table) joined to their category-10 auctions (a table) by a foreign key. */
  private void q3() {
    KTable<Long, Person> sellers = persons()
        .filter((k, p) -> !EndOfInput.is(p) && Lines.Q3_STATES.contains(p.state()))
        .toTable(Materialized.with(Serdes.Long(), StreamsSerdes.person()));
    KTable<Long, Auction> auctions = auctions()
        .filter((k, a) -> !EndOfInput.is(a) && a.category() == Lines.Q3_CATEGORY)
        .toTable(Materialized.with(Serdes.Long(), StreamsSerdes.auction()));
    toOut(auctions.join(sellers, Auction::seller, (a, p) -> Lines.q3(p, a.id()),
            Materialized.with(Serdes.Long(), Serdes.String()))
        .toStream().selectKey((id, line) -> Long.toString(id)));
  }

  /**
   * Auctions and their bids cogrouped per auction (either may come first), the winner per
   * auction a table, re-grouped by category with an adder and a subtractor.
   */
  private void q4() {
    KTable<Long, AuctionWinner> winners = auctions().filter((k, a) -> !EndOfInput.is(a))
        .groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.auction()))
        .<AuctionWinner>cogroup((id, a, w) -> w.withAuction(a))
        .cogroup(bids().filter((k, b) -> !EndOfInput.is(b))
                .groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.bid())),
            (id, b, w) -> w.withBid(b))
        .aggregate(AuctionWinner::empty,
            Materialized.with(Serdes.Long(), StreamsSerdes.winner()));
    toOut(winners.filter((id, w) -> w.hasWinner())
        .groupBy((id, w) -> KeyValue.pair(w.auction().category(), w.highest()),
            Grouped.with(Serdes.Long(), Serdes.Long()))
        .aggregate(() -> new long[2],
            (c, price, sc) -> new long[] {sc[0] + price, sc[1] + 1},
            (c, price, sc) -> new long[] {sc[0] - price, sc[1] - 1},
            Materialized.with(Serdes.Long(), StreamsSerdes.longs()))
        .toStream()
        .map((c, sc) -> KeyValue.pair(Long.toString(c),
            sc == null || sc[1] == 0 ? null : Lines.q4(c, sc[0] / sc[1]))));
  }

  /** Bids per auction in hopping windows (final results), then the most per window start. */
  private void q5() {
    toOut(bids().groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.bid()))
        .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(Lines.WINDOW_MS), GRACE)
            .advanceBy(Duration.ofMillis(Lines.SLIDE_MS)))
        .count()
        .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
        .toStream()
        .map((w, n) -> KeyValue.pair(w.window().start(), new long[] {w.key(), n}))
        .groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.longs()))
        .aggregate(TopAuctions::empty, (start, counted, top) ->
                TopAuctions.with(top, counted[0], counted[1]),
            Materialized.with(Serdes.Long(), StreamsSerdes.longs()))
        .toStream()
        .map((start, top) -> KeyValue.pair(Long.toString(start),
            TopAuctions.lines(start, top))));
  }

  /** The highest bids per auction and tumbling window (final results), then per window start. */
  private void q7() {
    toOut(bids().groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.bid()))
        .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(Lines.WINDOW_MS), GRACE))
        .aggregate(List::<Bid>of, (auction, b, highest) -> BidList.withHighest(highest, b),
            Materialized.with(Serdes.Long(), StreamsSerdes.bidList()))
        .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
        .toStream()
        .map((w, highest) -> KeyValue.pair(w.window().start(), highest))
        .groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.bidList()))
        .aggregate(List::<Bid>of, (start, some, highest) -> BidList.merge(highest, some),
            Materialized.with(Serdes.Long(), StreamsSerdes.bidList()))
        .toStream()
        .map((start, highest) -> KeyValue.pair(Long.toString(start),
            Lines.q7(start, highest))));
  }

  /**
   * New persons joined to auctions they sell within 10 s (a stream-stream join), kept when both
   * fall in the same tumbling window; the key (person and window) makes repeats one result.
   */
  private void q8() {
    KStream<Long, Person> persons = persons().filter((k, p) -> !EndOfInput.is(p));
    KStream<Long, Auction> sold = auctions().filter((k, a) -> !EndOfInput.is(a))
        .selectKey((k, a) -> a.seller());
    toOut(persons.join(sold, (p, a) -> Lines.tumble(p.dateTime()) == Lines.tumble(a.dateTime())
                ? Lines.q8(p.id(), p.name(), Lines.tumble(p.dateTime())) : "",
            JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(Lines.WINDOW_MS),
                GRACE_AFTER_REKEY),
            StreamJoined.with(Serdes.Long(), StreamsSerdes.person(), StreamsSerdes.auction()))
        .filter((id, line) -> !line.isEmpty())
        .map((id, line) -> KeyValue.pair(line, line)));
  }

  /**
   * Bids per bidder session, a table of sessions (a merged session's old keys get tombstones).
   * Kafka Streams merges records up to the gap apart (inclusive) where Flink's sessions need less
   * than the gap, hence a gap of 1 ms less; a session's end is its last bid, to which the gap is
   * added. No end marker after the re-key: arriving from the first upstream task done, it would
   * move the partition's stream time past the other tasks' bids.
   */
  private void q11() {
    toOut(bids().filter((k, b) -> !EndOfInput.is(b))
        .selectKey((k, b) -> b.bidder())
        .groupByKey(Grouped.with(Serdes.Long(), StreamsSerdes.bid()))
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(
            Duration.ofMillis(Lines.WINDOW_MS - 1), GRACE_AFTER_REKEY))
        .count()
        .toStream()
        .map((w, n) -> KeyValue.pair(w.key() + "@" + w.window().start(), n == null ? null
            : Lines.q11(w.key(), n, w.window().start(), w.window().end() + Lines.WINDOW_MS))));
  }
}
