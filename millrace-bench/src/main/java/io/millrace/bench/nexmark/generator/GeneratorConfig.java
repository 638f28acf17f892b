package io.millrace.bench.nexmark.generator;

/**
 * What a generated run looks like. The defaults are Beam's ({@code NexmarkConfiguration}): hot
 * ratios 2, 4, 4 (half the bids go to a hot auction, three quarters of auctions to a hot seller
 * and of bids to a hot bidder), 100 auctions in flight, 1,000 active persons, average sizes of
 * 200, 500 and 100 bytes, 10,000 events per second of event time, in order.
 *
 * @param seed mixed into every event's random numbers: the same seed, the same events
 * @param events how many events the run has
 * @param eventsPerSecond the rate in event time (event {@code n} is at
 *     {@code baseTime + n / eventsPerSecond})
 * @param baseTime the event time of event 0, ms since the epoch
 * @param outOfOrderGroupSize events are shuffled within consecutive groups of this many (1: in
 *     order), each keeping the event time of its new place's number, as Beam's option does
 */
public record GeneratorConfig(long seed, long events, long eventsPerSecond, long baseTime,
    int outOfOrderGroupSize, int hotAuctionRatio, int hotSellersRatio, int hotBiddersRatio,
    int numInFlightAuctions, int numActivePeople, int avgPersonByteSize, int avgAuctionByteSize,
    int avgBidByteSize) {

  /** One person in every 50 events. */
  public static final int PERSON_PROPORTION = 1;
  /** Three auctions in every 50 events. */
  public static final int AUCTION_PROPORTION = 3;
  /** Forty-six bids in every 50 events. */
  public static final int BID_PROPORTION = 46;
  /** The cycle of the proportions. */
  public static final int PROPORTION_DENOMINATOR =
      PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION;
  /** Person ids start here (Beam's). */
  public static final long FIRST_PERSON_ID = 1000;
  /** Auction ids start here (Beam's). */
  public static final long FIRST_AUCTION_ID = 1000;
  /** Categories are 10..14 (Beam's). */
  public static final long FIRST_CATEGORY_ID = 10;
  /** 2026-01-01T00:00:00Z: a whole number of 10-second windows, so windows line up with runs. */
  public static final long DEFAULT_BASE_TIME = 1_767_225_600_000L;

  /** Checks the values. */
  public GeneratorConfig {
    if (events < 0 || eventsPerSecond <= 0 || eventsPerSecond > 1_000_000
        || outOfOrderGroupSize < 1) {
      throw new IllegalArgumentException("events >= 0, 0 < events per second <= 1,000,000 and "
          + "an out-of-order group of at least 1, not " + events + ", " + eventsPerSecond
          + ", " + outOfOrderGroupSize);
    }
  }

  /** Beam's defaults with this seed and this many events. */
  public static GeneratorConfig defaults(long seed, long events) {
    return new GeneratorConfig(seed, events, 10_000, DEFAULT_BASE_TIME, 1, 2, 4, 4, 100, 1000,
        200, 500, 100);
  }

  /** This config at another event-time rate. */
  public GeneratorConfig withEventsPerSecond(long rate) {
    return new GeneratorConfig(seed, events, rate, baseTime, outOfOrderGroupSize, hotAuctionRatio,
        hotSellersRatio, hotBiddersRatio, numInFlightAuctions, numActivePeople, avgPersonByteSize,
        avgAuctionByteSize, avgBidByteSize);
  }

  /** This config with events shuffled in groups of {@code n}. */
  public GeneratorConfig withOutOfOrderGroupSize(int n) {
    return new GeneratorConfig(seed, events, eventsPerSecond, baseTime, n, hotAuctionRatio,
        hotSellersRatio, hotBiddersRatio, numInFlightAuctions, numActivePeople, avgPersonByteSize,
        avgAuctionByteSize, avgBidByteSize);
  }

  /** The event time of event number {@code n}, in ms. */
  public long timestampOf(long n) {
    // Microseconds first, so rates that do not divide 1,000 stay exact over long runs.
    return baseTime + n * 1_000_000L / eventsPerSecond / 1000L;
  }

  /**
   * The number whose event the {@code n}-th delivered event carries: {@code n} itself in order,
   * else a fixed shuffle inside its group (Beam's: multiply by a prime, modulo the group).
   */
  public long adjustedEventNumber(long n) {
    long group = outOfOrderGroupSize;
    return (n / group) * group + (n * 953) % group;
  }
}
