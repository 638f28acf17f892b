package io.millrace.bench.nexmark.millrace;

import io.millrace.bench.nexmark.InputCounter;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.serde.LongSerde;
import java.time.Duration;

/**
 * The queries' inputs: streams {@code bid}, {@code auction}, {@code person} of the job, keyed by
 * id, event time from the record's {@code dateTime}, each record counted as it comes in.
 */
final class Sources {
  /** How far out of order events may come (the generator's groups stay well inside it). */
  static final Duration OUT_OF_ORDER = Duration.ofSeconds(1);

  private Sources() {}

  static MessageStream<Long, Bid> bids(StreamGraph graph) {
    return graph.stream(Source.<Long, Bid>of("bid").withSerdes(new LongSerde(), new BidSerde())
            .withTimestamps((k, b, t) -> b.dateTime()).withMaxOutOfOrder(OUT_OF_ORDER))
        .peek((k, b) -> InputCounter.add());
  }

  static MessageStream<Long, Auction> auctions(StreamGraph graph) {
    return graph.stream(Source.<Long, Auction>of("auction")
            .withSerdes(new LongSerde(), new AuctionSerde())
            .withTimestamps((k, a, t) -> a.dateTime()).withMaxOutOfOrder(OUT_OF_ORDER))
        .peek((k, a) -> InputCounter.add());
  }

  static MessageStream<Long, Person> persons(StreamGraph graph) {
    return graph.stream(Source.<Long, Person>of("person")
            .withSerdes(new LongSerde(), new PersonSerde())
            .withTimestamps((k, p, t) -> p.dateTime()).withMaxOutOfOrder(OUT_OF_ORDER))
        .peek((k, p) -> InputCounter.add());
  }
}
