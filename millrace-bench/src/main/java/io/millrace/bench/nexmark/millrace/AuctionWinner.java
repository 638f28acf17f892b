package io.millrace.bench.nexmark.millrace;

import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import java.util.Arrays;

/**
 * q4's state per auction: the auction once it has come, the bids that came before it (time and
 * price pairs, not yet known to be in its time), and the highest bid placed between its start
 * and its expiry (-1 while none).
 */
public record AuctionWinner(Auction auction, long[] pending, long highest) {

  /** Nothing known yet. */
  public static AuctionWinner empty() {
    return new AuctionWinner(null, new long[0], -1);
  }

  /** This one after {@code event} (an {@link Auction} or a {@link Bid} of it). */
  public AuctionWinner with(Object event) {
    if (event instanceof Auction a) {
      if (auction != null) {
        return this;
      }
      long top = -1;
      for (int i = 0; i < pending.length; i += 2) {
        if (inTime(a, pending[i])) {
          top = Math.max(top, pending[i + 1]);
        }
      }
      return new AuctionWinner(a, new long[0], top);
    }
    Bid b = (Bid) event;
    if (auction == null) {
      long[] more = Arrays.copyOf(pending, pending.length + 2);
      more[pending.length] = b.dateTime();
      more[pending.length + 1] = b.price();
      return new AuctionWinner(null, more, highest);
    }
    return inTime(auction, b.dateTime()) && b.price() > highest
        ? new AuctionWinner(auction, pending, b.price()) : this;
  }

  /** Whether it has its auction and a bid in its time. */
  public boolean hasWinner() {
    return auction != null && highest >= 0;
  }

  private static boolean inTime(Auction a, long time) {
    return time >= a.dateTime() && time <= a.expires();
  }
}
