package io.millrace.bench.nexmark.millrace;

import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import java.util.Arrays;

/**
 * q4's state per auction: the auction once it has come, the bids that came before it (time and
 * price pairs, not yet known to be in its time), the highest bid placed between its start and its
 * expiry (-1 while none), and what the last record changed of its category's sum and count (the
 * change the per-category aggregate adds: the DSL's tables have no subtracting re-group).
 */
public record AuctionWinner(Auction auction, long[] pending, long highest, long priceDelta,
    long countDelta) {

  /** Nothing known yet. */
  public static AuctionWinner empty() {
    return new AuctionWinner(null, new long[0], -1, 0, 0);
  }

  /** This one after {@code event} (an {@link Auction} or a {@link Bid} of it). */
  public AuctionWinner with(Object event) {
    if (event instanceof Auction a) {
      if (auction != null) {
        return new AuctionWinner(auction, pending, highest, 0, 0);
      }
      long top = -1;
      for (int i = 0; i < pending.length; i += 2) {
        if (inTime(a, pending[i])) {
          top = Math.max(top, pending[i + 1]);
        }
      }
      return new AuctionWinner(a, new long[0], top, top < 0 ? 0 : top, top < 0 ? 0 : 1);
    }
    Bid b = (Bid) event;
    if (auction == null) {
      long[] more = Arrays.copyOf(pending, pending.length + 2);
      more[pending.length] = b.dateTime();
      more[pending.length + 1] = b.price();
      return new AuctionWinner(null, more, highest, 0, 0);
    }
    if (!inTime(auction, b.dateTime()) || b.price() <= highest) {
      return new AuctionWinner(auction, pending, highest, 0, 0);
    }
    return highest < 0 ? new AuctionWinner(auction, pending, b.price(), b.price(), 1)
        : new AuctionWinner(auction, pending, b.price(), b.price() - highest, 0);
  }

  /** Whether the last record changed its category's sum or count. */
  public boolean changed() {
    return priceDelta != 0 || countDelta != 0;
  }

  private static boolean inTime(Auction a, long time) {
    return time >= a.dateTime() && time <= a.expires();
  }
}
