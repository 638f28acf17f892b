package io.millrace.bench.nexmark.events;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The bids tied at a window's highest price (q7's aggregate), as one value for a store: a count,
 * then each bid's {@link EventCodec} bytes after their length.
 */
public final class BidList {
  private BidList() {}

  /** The list with {@code bid} folded in: it alone if it beats them, added if it ties. */
  public static List<Bid> withHighest(List<Bid> highest, Bid bid) {
    if (highest.isEmpty() || bid.price() > highest.get(0).price()) {
      return List.of(bid);
    }
    if (bid.price() < highest.get(0).price()) {
      return highest;
    }
    List<Bid> tied = new ArrayList<>(highest);
    tied.add(bid);
    return tied;
  }

  /** The highest of two such lists, ties of both kept. */
  public static List<Bid> merge(List<Bid> a, List<Bid> b) {
    List<Bid> highest = a;
    for (Bid bid : b) {
      highest = withHighest(highest, bid);
    }
    return highest;
  }

  /** The bytes of a list. */
  public static byte[] encode(List<Bid> bids) {
    List<byte[]> each = new ArrayList<>(bids.size());
    int size = 4;
    for (Bid b : bids) {
      byte[] bytes = EventCodec.encode(b);
      each.add(bytes);
      size += 4 + bytes.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size).putInt(bids.size());
    for (byte[] bytes : each) {
      out.putInt(bytes.length).put(bytes);
    }
    return out.array();
  }

  /** A list from its bytes. */
  public static List<Bid> decode(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    int n = in.getInt();
    List<Bid> bids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[] one = new byte[in.getInt()];
      in.get(one);
      bids.add(EventCodec.decodeBid(one));
    }
    return bids;
  }
}
