package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import io.millrace.bench.nexmark.TopAuctions;

/** Millrace's serde of q5's second aggregate ({@link TopAuctions}'s bytes). */
public final class TopAuctionsSerde implements Serde<long[]> {
  @Override
  public byte[] toBytes(long[] object) {
    return object == null ? null : TopAuctions.encode(object);
  }

  @Override
  public long[] fromBytes(byte[] bytes) {
    return bytes == null ? null : TopAuctions.decode(bytes);
  }
}
