package io.millrace.bench.nexmark.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The generator's events: the same from a seed, in Nexmark's proportions, times from numbers. */
class GeneratorTest {
  private static List<Object> events(GeneratorConfig config) {
    List<Object> events = new ArrayList<>();
    new Generator(config).forEachRemaining(events::add);
    return events;
  }

  private static long time(Object event) {
    return event instanceof Bid b ? b.dateTime()
        : event instanceof Auction a ? a.dateTime() : ((Person) event).dateTime();
  }

  @Test
  void theSameSeedGivesTheSameEventsAndAnotherSeedOthers() {
    List<Object> first = events(GeneratorConfig.defaults(7, 5_000));
    assertThat(events(GeneratorConfig.defaults(7, 5_000))).isEqualTo(first);
    List<Object> other = events(GeneratorConfig.defaults(8, 5_000));
    assertThat(other).hasSameSizeAs(first).isNotEqualTo(first);
    // Kinds and times follow the event number, not the seed.
    for (int i = 0; i < first.size(); i++) {
      assertThat(other.get(i).getClass()).isEqualTo(first.get(i).getClass());
      assertThat(time(other.get(i))).isEqualTo(time(first.get(i)));
    }
  }

  @Test
  void everyFiftyEventsHoldOnePersonThreeAuctionsAndFortySixBids() {
    List<Object> events = events(GeneratorConfig.defaults(1, 50_000));
    for (int cycle = 0; cycle < 1000; cycle++) {
      Map<Class<?>, Integer> kinds = new HashMap<>();
      for (Object e : events.subList(cycle * 50, cycle * 50 + 50)) {
        kinds.merge(e.getClass(), 1, Integer::sum);
      }
      assertThat(kinds).containsEntry(Person.class, 1).containsEntry(Auction.class, 3)
          .containsEntry(Bid.class, 46);
    }
    assertThat(NexmarkLoader.count(GeneratorConfig.defaults(1, 50_000)))
        .containsExactly(1_000, 3_000, 46_000);
  }

  @Test
  void personAndAuctionIdsCountUpFromTheirFirstIds() {
    long nextPerson = GeneratorConfig.FIRST_PERSON_ID;
    long nextAuction = GeneratorConfig.FIRST_AUCTION_ID;
    for (Object e : events(GeneratorConfig.defaults(3, 10_000))) {
      if (e instanceof Person p) {
        assertThat(p.id()).isEqualTo(nextPerson++);
      } else if (e instanceof Auction a) {
        assertThat(a.id()).isEqualTo(nextAuction++);
        assertThat(a.expires()).isGreaterThan(a.dateTime());
        assertThat(a.reserve()).isGreaterThanOrEqualTo(a.initialBid());
        assertThat(a.category()).isBetween(10L, 14L);
      }
    }
  }

  @Test
  void eventTimeFollowsTheEventNumberAtTheConfiguredRate() {
    GeneratorConfig config = GeneratorConfig.defaults(1, 3_000).withEventsPerSecond(1_000);
    List<Object> events = events(config);
    for (int n = 0; n < events.size(); n++) {
      assertThat(time(events.get(n))).isEqualTo(GeneratorConfig.DEFAULT_BASE_TIME + n);
    }
  }

  @Test
  void outOfOrderShufflesWithinGroupsAndKeepsEachEventItsOwnTime() {
    GeneratorConfig inOrder = GeneratorConfig.defaults(5, 4_000).withEventsPerSecond(1_000);
    GeneratorConfig shuffled = inOrder.withOutOfOrderGroupSize(100);
    List<Object> ordered = events(inOrder);
    List<Object> events = events(shuffled);
    boolean wentBack = false;
    for (int group = 0; group < 40; group++) {
      List<Object> mine = events.subList(group * 100, group * 100 + 100);
      // The same events as in order, delivered in another order within the group.
      assertThat(mine).containsExactlyInAnyOrderElementsOf(
          ordered.subList(group * 100, group * 100 + 100));
      for (int i = 1; i < mine.size(); i++) {
        wentBack |= time(mine.get(i)) < time(mine.get(i - 1));
      }
    }
    assertThat(wentBack).isTrue();
  }

  @Test
  void hotAuctionsSellersAndBiddersDrawTheirShare() {
    int bids = 0;
    int hotAuctionBids = 0;
    int hotBidderBids = 0;
    int auctions = 0;
    int hotSellerAuctions = 0;
    for (Object e : events(GeneratorConfig.defaults(11, 100_000))) {
      if (e instanceof Bid b) {
        bids++;
        hotAuctionBids += (b.auction() - GeneratorConfig.FIRST_AUCTION_ID) % 100 == 0 ? 1 : 0;
        hotBidderBids += (b.bidder() - GeneratorConfig.FIRST_PERSON_ID) % 100 == 1 ? 1 : 0;
      } else if (e instanceof Auction a) {
        auctions++;
        hotSellerAuctions += (a.seller() - GeneratorConfig.FIRST_PERSON_ID) % 100 == 0 ? 1 : 0;
      }
    }
    // Hot ratio r: 1 - 1/r of them go to the hot one (plus the random ones that hit it).
    assertThat(hotAuctionBids / (double) bids).isBetween(0.49, 0.53); // ratio 2
    assertThat(hotBidderBids / (double) bids).isBetween(0.74, 0.77); // ratio 4
    assertThat(hotSellerAuctions / (double) auctions).isBetween(0.73, 0.78); // ratio 4
  }

  @Test
  void randomBidsStayAmongTheAuctionsInFlight() {
    long newestAuction = GeneratorConfig.FIRST_AUCTION_ID - 1;
    for (Object e : events(GeneratorConfig.defaults(2, 20_000))) {
      if (e instanceof Auction a) {
        newestAuction = a.id();
      } else if (e instanceof Bid b) {
        assertThat(b.auction()).isBetween(newestAuction - 100 - 100,
            newestAuction + EventIds.ID_LEAD);
      }
    }
  }

  @Test
  void aRunStopsAfterItsEvents() {
    Generator generator = new Generator(GeneratorConfig.defaults(1, 2));
    generator.next();
    generator.next();
    assertThat(generator.hasNext()).isFalse();
    assertThatThrownBy(generator::next).hasMessageContaining("all 2 events");
  }

  @Test
  void aBadConfigIsRefusedNamingWhatIsWrong() {
    assertThatThrownBy(() -> GeneratorConfig.defaults(1, 10).withEventsPerSecond(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("events per second");
  }
}
