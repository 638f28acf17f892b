package io.millrace.bench.nexmark.generator;

import static io.millrace.bench.nexmark.generator.GeneratorConfig.AUCTION_PROPORTION;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.PERSON_PROPORTION;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.PROPORTION_DENOMINATOR;

import java.util.Random;

/**
 * Which persons and auctions exist at an event: the n-th event of a cycle of 50 is a person, an
 * auction or a bid by its place in the cycle, so the last person and auction ids follow from the
 * event id alone (no state, hence any event can be generated on its own, in any order).
 */
final class EventIds {
  /** Ids a little ahead of the newest may be picked: a bid can come before its auction. */
  static final int ID_LEAD = 10;

  private EventIds() {}

  /** The newest person id (from 0) at event {@code eventId}: its own if it is a person. */
  static long lastPerson(long eventId) {
    long epoch = eventId / PROPORTION_DENOMINATOR;
    long offset = Math.min(eventId % PROPORTION_DENOMINATOR, PERSON_PROPORTION - 1);
    return epoch * PERSON_PROPORTION + offset;
  }

  /**
   * The newest auction id (from 0) at event {@code eventId}: its own if it is an auction; -1
   * before the first.
   */
  static long lastAuction(long eventId) {
    long epoch = eventId / PROPORTION_DENOMINATOR;
    long offset = eventId % PROPORTION_DENOMINATOR;
    if (offset < PERSON_PROPORTION) { // a person: the previous cycle's last auction
      epoch--;
      offset = AUCTION_PROPORTION - 1;
    } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) { // a bid: this cycle's last
      offset = AUCTION_PROPORTION - 1;
    } else {
      offset -= PERSON_PROPORTION;
    }
    return epoch * AUCTION_PROPORTION + offset;
  }

  /** A random one of the active persons (the newest {@code active}), or one a little ahead. */
  static long randomPerson(long eventId, Random random, int active) {
    long people = lastPerson(eventId) + 1;
    long window = Math.min(people, active);
    return people - window + nextLong(random, window + ID_LEAD);
  }

  /** A random one of the auctions in flight (the newest {@code inFlight}), or one a little ahead. */
  static long randomAuction(long eventId, Random random, int inFlight) {
    long newest = lastAuction(eventId);
    long oldest = Math.max(newest - inFlight, 0);
    return oldest + nextLong(random, newest - oldest + 1 + ID_LEAD);
  }

  /** Uniform in [0, n). */
  static long nextLong(Random random, long n) {
    if (n <= Integer.MAX_VALUE) {
      return random.nextInt((int) n);
    }
    return Math.floorMod(random.nextLong(), n);
  }
}
