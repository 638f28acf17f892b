package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.EventCodec;
import java.nio.ByteBuffer;

/** Millrace's serde of q4's {@link AuctionWinner}. */
public final class AuctionWinnerSerde implements Serde<AuctionWinner> {
  @Override
  public byte[] toBytes(AuctionWinner w) {
    if (w == null) {
      return null;
    }
    byte[] auction = w.auction() == null ? new byte[0] : EventCodec.encode(w.auction());
    ByteBuffer b = ByteBuffer.allocate(4 + auction.length + 8 * (1 + w.pending().length));
    b.putInt(w.auction() == null ? -1 : auction.length).put(auction).putLong(w.highest());
    for (long v : w.pending()) {
      b.putLong(v);
    }
    return b.array();
  }

  @Override
  public AuctionWinner fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int length = b.getInt();
    Auction auction = null;
    if (length >= 0) {
      byte[] a = new byte[length];
      b.get(a);
      auction = EventCodec.decodeAuction(a);
    }
    long highest = b.getLong();
    long[] pending = new long[b.remaining() / 8];
    for (int i = 0; i < pending.length; i++) {
      pending[i] = b.getLong();
    }
    return new AuctionWinner(auction, pending, highest);
  }
}
