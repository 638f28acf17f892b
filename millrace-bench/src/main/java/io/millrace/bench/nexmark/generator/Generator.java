package io.millrace.bench.nexmark.generator;

import static io.millrace.bench.nexmark.generator.GeneratorConfig.AUCTION_PROPORTION;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.FIRST_AUCTION_ID;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.FIRST_CATEGORY_ID;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.FIRST_PERSON_ID;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.PERSON_PROPORTION;
import static io.millrace.bench.nexmark.generator.GeneratorConfig.PROPORTION_DENOMINATOR;

import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * The events of one run, in delivery order: a {@link Person}, {@link Auction} or {@link Bid} per
 * call. Event {@code n} is made from its own random numbers (a {@link Random} seeded from the
 * config's seed and the event's id), so the run is the same every time, whatever reads it.
 *
 * <p>The rules, after Beam's generator: the event id's place in a cycle of 50 makes it a person
 * (1), an auction (3) or a bid (46); a bid goes to the newest hundredth of auctions' first one
 * with probability {@code 1 - 1/hotAuctionRatio}, else to a random auction in flight; sellers and
 * bidders are hot (the newest hundred persons' first, resp. second) or a random active person;
 * an auction stays open about as long as it takes for {@code numInFlightAuctions} more to open.
 */
public final class Generator implements Iterator<Object> {
  private static final List<String> STATES = List.of("AZ", "CA", "ID", "OR", "WA", "WY");
  private static final List<String> CITIES = List.of("Phoenix", "Los Angeles", "San Francisco",
      "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne");
  private static final List<String> FIRST_NAMES = List.of("Peter", "Paul", "Luke", "John",
      "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter");
  private static final List<String> LAST_NAMES = List.of("Shultz", "Abrams", "Spencer", "White",
      "Bartels", "Walton", "Smith", "Jones", "Noris");
  private static final List<String> HOT_CHANNELS = List.of("Google", "Facebook", "Baidu", "Apple");
  private static final int NUM_CATEGORIES = 5;
  /** The newest this many persons or auctions form a batch whose first one is "hot". */
  private static final int HOT_BATCH = 100;

  private final GeneratorConfig config;
  private long delivered;

  /** A run from its first event. */
  public Generator(GeneratorConfig config) {
    this.config = config;
  }

  @Override
  public boolean hasNext() {
    return delivered < config.events();
  }

  /** The next event: a {@link Person}, an {@link Auction} or a {@link Bid}. */
  @Override
  public Object next() {
    if (!hasNext()) {
      throw new NoSuchElementException("all " + config.events() + " events delivered");
    }
    long eventId = config.adjustedEventNumber(delivered);
    long timestamp = config.timestampOf(eventId);
    Random random = new Random(mix(config.seed(), eventId));
    long rem = eventId % PROPORTION_DENOMINATOR;
    Object event;
    if (rem < PERSON_PROPORTION) {
      event = person(eventId, random, timestamp);
    } else if (rem < PERSON_PROPORTION + AUCTION_PROPORTION) {
      event = auction(eventId, random, timestamp);
    } else {
      event = bid(eventId, random, timestamp);
    }
    delivered++;
    return event;
  }

  private static long mix(long seed, long eventId) {
    // SplitMix64's finaliser: neighbouring ids and seeds give unrelated Random seeds.
    long z = seed * 0x9E3779B97F4A7C15L + eventId;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private Person person(long eventId, Random random, long timestamp) {
    long id = EventIds.lastPerson(eventId) + FIRST_PERSON_ID;
    String name = pick(random, FIRST_NAMES) + " " + pick(random, LAST_NAMES);
    String email = RandomText.string(random, 7) + "@" + RandomText.string(random, 5) + ".com";
    StringBuilder card = new StringBuilder(19);
    for (int i = 0; i < 4; i++) {
      if (i > 0) {
        card.append(' ');
      }
      String group = Integer.toString(random.nextInt(10_000));
      card.append("0000", group.length(), 4).append(group);
    }
    String city = pick(random, CITIES);
    String state = pick(random, STATES);
    int size = 8 + name.length() + email.length() + card.length() + city.length() + state.length();
    return new Person(id, name, email, card.toString(), city, state, timestamp,
        RandomText.extra(random, size, config.avgPersonByteSize()));
  }

  private Auction auction(long eventId, Random random, long timestamp) {
    long id = EventIds.lastAuction(eventId) + FIRST_AUCTION_ID;
    long seller = random.nextInt(config.hotSellersRatio()) > 0
        ? (EventIds.lastPerson(eventId) / HOT_BATCH) * HOT_BATCH
        : EventIds.randomPerson(eventId, random, config.numActivePeople());
    long category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
    long initialBid = RandomText.price(random);
    long expires = timestamp + auctionLengthMs(eventId, random, timestamp);
    String name = RandomText.string(random, 20);
    String description = RandomText.string(random, 100);
    long reserve = initialBid + RandomText.price(random);
    int size = 8 + name.length() + description.length() + 8 + 8 + 8 + 8 + 8;
    return new Auction(id, name, description, initialBid, reserve, timestamp, expires,
        seller + FIRST_PERSON_ID, category,
        RandomText.extra(random, size, config.avgAuctionByteSize()));
  }

  /** 1 ms up to twice the time until {@code numInFlightAuctions} more auctions have opened. */
  private long auctionLengthMs(long eventId, Random random, long timestamp) {
    long eventsUntil = (long) config.numInFlightAuctions() * PROPORTION_DENOMINATOR
        / AUCTION_PROPORTION;
    long horizonMs = config.timestampOf(eventId + eventsUntil) - timestamp;
    return 1 + EventIds.nextLong(random, Math.max(horizonMs * 2, 1));
  }

  private Bid bid(long eventId, Random random, long timestamp) {
    long auction = random.nextInt(config.hotAuctionRatio()) > 0
        ? (EventIds.lastAuction(eventId) / HOT_BATCH) * HOT_BATCH
        : EventIds.randomAuction(eventId, random, config.numInFlightAuctions());
    long bidder = random.nextInt(config.hotBiddersRatio()) > 0
        ? (EventIds.lastPerson(eventId) / HOT_BATCH) * HOT_BATCH + 1 // not the hot seller
        : EventIds.randomPerson(eventId, random, config.numActivePeople());
    long price = RandomText.price(random);
    String channel;
    String url;
    if (random.nextInt(10) > 0) { // most bids come through a few big channels
      channel = pick(random, HOT_CHANNELS);
      url = "https://www.nexmark.com/" + channel.toLowerCase(java.util.Locale.ROOT)
          + "/item.htm?query=1";
    } else {
      channel = "channel-" + random.nextInt(10_000);
      url = "https://www.nexmark.com/" + RandomText.string(random, 5).replace(' ', '_')
          + "/item.htm?query=1&channel_id=" + random.nextInt(10_000);
    }
    int size = 8 + 8 + 8 + 8 + channel.length() + url.length();
    return new Bid(auction + FIRST_AUCTION_ID, bidder + FIRST_PERSON_ID, price, channel, url,
        timestamp, RandomText.extra(random, size, config.avgBidByteSize()));
  }

  private static String pick(Random random, List<String> values) {
    return values.get(random.nextInt(values.size()));
  }
}
