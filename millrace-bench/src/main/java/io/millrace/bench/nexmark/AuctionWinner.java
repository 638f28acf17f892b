package io.millrace.bench.nexmark;

import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.BidList;
import io.millrace.bench.nexmark.events.EventCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * q4's state per auction: the auction once it has come, the highest price of its bids placed
 * between its start and expiry, and the bids that came before it (a bid's topic may be read ahead
 * of the auctions' topic), kept until it comes.
 *
 * @param auction the auction, or null before it came
 * @param highest the highest valid price so far, -1 for none
 * @param early bids that came before the auction
 */
public record AuctionWinner(Auction auction, long highest, List<Bid> early) {

  /** Nothing seen yet. */
  public static AuctionWinner empty() {
    return new AuctionWinner(null, -1, List.of());
  }

  /** With its auction: the early bids are judged now. */
  public AuctionWinner withAuction(Auction a) {
    long h = highest;
    for (Bid b : early) {
      if (counts(a, b)) {
        h = Math.max(h, b.price());
      }
    }
    return new AuctionWinner(a, h, List.of());
  }

  /** With one more bid. */
  public AuctionWinner withBid(Bid b) {
    if (auction == null) {
      List<Bid> more = new ArrayList<>(early);
      more.add(b);
      return new AuctionWinner(null, highest, more);
    }
    return counts(auction, b) && b.price() > highest
        ? new AuctionWinner(auction, b.price(), early) : this;
  }

  /** Whether it has its auction and a valid bid. */
  public boolean hasWinner() {
    return auction != null && highest >= 0;
  }

  /** A bid counts if placed between the auction's start and its expiry, both included. */
  public static boolean counts(Auction a, Bid b) {
    return b.dateTime() >= a.dateTime() && b.dateTime() <= a.expires();
  }

  /** Its bytes. */
  public byte[] encode() {
    byte[] a = auction == null ? new byte[0] : EventCodec.encode(auction);
    byte[] e = BidList.encode(early);
    return ByteBuffer.allocate(4 + a.length + 8 + e.length).putInt(a.length).put(a)
        .putLong(highest).put(e).array();
  }

  /** From its bytes. */
  public static AuctionWinner decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte[] a = new byte[b.getInt()];
    b.get(a);
    long highest = b.getLong();
    byte[] e = new byte[b.remaining()];
    b.get(e);
    return new AuctionWinner(a.length == 0 ? null : EventCodec.decodeAuction(a), highest,
        BidList.decode(e));
  }
}
