package io.millrace.bench.nexmark;

import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;

/**
 * The text of each query's result records, the same on every system and in the model, so results
 * compare line for line. Only formatting lives here: what goes into a line is computed by each
 * system's own query.
 */
public final class Lines {
  /** Flink's nexmark windows: 10 s tumbling (q7, q8), 10 s every 2 s (q5), 10 s gap (q11). */
  public static final long WINDOW_MS = 10_000;
  /** The slide of q5's hopping window. */
  public static final long SLIDE_MS = 2_000;
  /** The states q3 keeps. */
  public static final java.util.Set<String> Q3_STATES = java.util.Set.of("OR", "ID", "CA");
  /** The category q3 keeps. */
  public static final long Q3_CATEGORY = 10;

  private Lines() {}

  /** q0: the bid, every field. */
  public static String q0(Bid b) {
    return b.auction() + "," + b.bidder() + "," + b.price() + "," + b.channel() + "," + b.url()
        + "," + b.dateTime() + "," + b.extra();
  }

  /**
   * q1's price in euros: dollars x 0.908, exact (cents x 908 is in thousandths of a cent), as
   * Flink's {@code 0.908 * price} is a decimal.
   */
  public static long euroMilliCents(long priceCents) {
    return priceCents * 908;
  }

  /**
   * q1: the bid with its price in euros (cents, three decimals; prices are never negative). The
   * decimals are padded by hand: {@code String.format("%03d")} looked up the locale's decimal
   * symbols for every line, over a third of Millrace's loop time in q1 (JFR), on every system.
   */
  public static String q1(Bid b, long euroMilliCents) {
    long thousandths = euroMilliCents % 1000;
    String pad = thousandths < 10 ? "00" : thousandths < 100 ? "0" : "";
    return b.auction() + "," + b.bidder() + "," + (euroMilliCents / 1000) + "." + pad
        + thousandths + "," + b.dateTime() + "," + b.extra();
  }

  /** q2: auction and price. */
  public static String q2(long auction, long price) {
    return auction + "," + price;
  }

  /** q3: the seller's name, city and state, and the auction. */
  public static String q3(Person seller, long auction) {
    return seller.name() + "," + seller.city() + "," + seller.state() + "," + auction;
  }

  /** q4: a category and its average winning price (a long, as Flink's AVG of a BIGINT). */
  public static String q4(long category, long average) {
    return category + "," + average;
  }

  /** q5: a window's start, one of its auctions with the most bids, and that count. */
  public static String q5(long windowStart, long auction, long count) {
    return windowStart + "," + auction + "," + count;
  }

  /** q7: a window's start and one of its bids with the highest price. */
  public static String q7(long windowStart, Bid b) {
    return windowStart + "," + b.auction() + "," + b.price() + "," + b.bidder() + ","
        + b.dateTime() + "," + b.extra();
  }

  /** q8: a person who opened an auction in the window they joined in. */
  public static String q8(long personId, String name, long windowStart) {
    return personId + "," + name + "," + windowStart;
  }

  /** q11: a bidder's session: its bids, its start and its end (the last bid plus the gap). */
  public static String q11(long bidder, long count, long start, long end) {
    return bidder + "," + count + "," + start + "," + end;
  }

  /** q7: the lines of window {@code start}'s highest bids, newline-separated. */
  public static String q7(long windowStart, java.util.List<Bid> highest) {
    StringBuilder s = new StringBuilder();
    for (Bid b : highest) {
      s.append(s.length() > 0 ? "\n" : "").append(q7(windowStart, b));
    }
    return s.toString();
  }

  /** The start of the 10 s tumbling window holding {@code time}. */
  public static long tumble(long time) {
    return Math.floorDiv(time, WINDOW_MS) * WINDOW_MS;
  }
}
