package io.millrace.bench.peers.nexmark;

import io.millrace.bench.nexmark.AuctionWinner;
import io.millrace.bench.nexmark.TopAuctions;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.BidList;
import io.millrace.bench.nexmark.events.EventCodec;
import io.millrace.bench.nexmark.events.Person;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** Kafka Streams' serdes of the Nexmark events and states: the same codecs as Millrace's. */
final class StreamsSerdes {
  private StreamsSerdes() {}

  static Serde<Bid> bid() {
    return of(EventCodec::encode, EventCodec::decodeBid);
  }

  static Serde<Auction> auction() {
    return of(EventCodec::encode, EventCodec::decodeAuction);
  }

  static Serde<Person> person() {
    return of(EventCodec::encode, EventCodec::decodePerson);
  }

  static Serde<List<Bid>> bidList() {
    return of(BidList::encode, BidList::decode);
  }

  static Serde<long[]> longs() {
    return of(TopAuctions::encode, TopAuctions::decode);
  }

  static Serde<AuctionWinner> winner() {
    return of(AuctionWinner::encode, AuctionWinner::decode);
  }

  private static <T> Serde<T> of(Function<T, byte[]> write, Function<byte[], T> read) {
    return Serdes.serdeFrom((topic, v) -> v == null ? null : write.apply(v),
        (topic, bytes) -> bytes == null ? null : read.apply(bytes));
  }
}
