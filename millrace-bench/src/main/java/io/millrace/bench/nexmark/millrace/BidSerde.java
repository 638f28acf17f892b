package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EventCodec;

/** Millrace's serde of a {@link Bid}: {@link EventCodec}'s bytes. */
public final class BidSerde implements Serde<Bid> {
  @Override
  public byte[] toBytes(Bid object) {
    return object == null ? null : EventCodec.encode(object);
  }

  @Override
  public Bid fromBytes(byte[] bytes) {
    return bytes == null ? null : EventCodec.decodeBid(bytes);
  }
}
