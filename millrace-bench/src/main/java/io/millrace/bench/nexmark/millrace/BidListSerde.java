package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.BidList;
import java.util.List;

/** Millrace's serde of q7's aggregate, a list of bids ({@link BidList}'s bytes). */
public final class BidListSerde implements Serde<List<Bid>> {
  @Override
  public byte[] toBytes(List<Bid> object) {
    return object == null ? null : BidList.encode(object);
  }

  @Override
  public List<Bid> fromBytes(byte[] bytes) {
    return bytes == null ? null : BidList.decode(bytes);
  }
}
