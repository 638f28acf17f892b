package io.millrace.bench.nexmark.events;

/**
 * The record that ends each partition of a run's topics: an event of the topic's kind with id -1
 * and an event time a minute past the run's last event. Kafka topics never end, and neither Kafka
 * Streams nor Millrace reading Kafka knows where the run stops; this record moves each
 * partition's event time past every window, so every window closes, on every system alike. Each
 * query lets it through to its windows and keeps it out of its results.
 */
public final class EndOfInput {
  /**
   * How far past the last event the marker's time is: beyond any window, session or grace
   * (Kafka Streams' joins and sessions after a re-key wait 5 minutes for late records).
   */
  public static final long AFTER_LAST_EVENT_MS = 600_000;

  private EndOfInput() {}

  /** The marker of the bids' topic. */
  public static Bid bid(long time) {
    return new Bid(-1, -1, 0, "", "", time, "");
  }

  /** The marker of the auctions' topic. */
  public static Auction auction(long time) {
    return new Auction(-1, "", "", 0, 0, time, time, -1, -1, "");
  }

  /** The marker of the persons' topic. */
  public static Person person(long time) {
    return new Person(-1, "", "", "", "", "", time, "");
  }

  /** Whether a bid is the end marker. */
  public static boolean is(Bid b) {
    return b.auction() < 0;
  }

  /** Whether an auction is the end marker. */
  public static boolean is(Auction a) {
    return a.id() < 0;
  }

  /** Whether a person is the end marker. */
  public static boolean is(Person p) {
    return p.id() < 0;
  }
}
