package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.EventCodec;

/** Millrace's serde of a {@link Auction}: {@link EventCodec}'s bytes. */
public final class AuctionSerde implements Serde<Auction> {
  @Override
  public byte[] toBytes(Auction object) {
    return object == null ? null : EventCodec.encode(object);
  }

  @Override
  public Auction fromBytes(byte[] bytes) {
    return bytes == null ? null : EventCodec.decodeAuction(bytes);
  }
}
