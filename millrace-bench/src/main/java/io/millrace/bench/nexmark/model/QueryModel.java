package io.millrace.bench.nexmark.model;

import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The expected result of each query over a run's events: the sorted result lines (for a
 * {@link NexmarkQuery.Output#TABLE} query, its final line per key). Computed from the whole run
 * at once, so it depends on which events there are, never on the order they arrive in: what a
 * correct streaming system must reach once every event is in and every window closed.
 */
public final class QueryModel {
  private QueryModel() {}

  /** The sorted result lines of {@code query} over {@code events}. */
  public static List<String> expected(NexmarkQuery query, List<?> events) {
    List<Person> persons = new ArrayList<>();
    List<Auction> auctions = new ArrayList<>();
    List<Bid> bids = new ArrayList<>();
    for (Object e : events) {
      if (e instanceof Bid b) {
        bids.add(b);
      } else if (e instanceof Auction a) {
        auctions.add(a);
      } else {
        persons.add((Person) e);
      }
    }
    List<String> lines = switch (query) {
      case Q0 -> bids.stream().map(Lines::q0).toList();
      case Q1 -> bids.stream().map(b -> Lines.q1(b, Lines.euroMilliCents(b.price()))).toList();
      case Q2 -> bids.stream().filter(b -> b.auction() % 123 == 0)
          .map(b -> Lines.q2(b.auction(), b.price())).toList();
      case Q3 -> q3(persons, auctions);
      case Q4 -> q4(auctions, bids);
      case Q5 -> q5(bids);
      case Q7 -> q7(bids);
      case Q8 -> q8(persons, auctions);
      case Q11 -> q11(bids);
    };
    List<String> sorted = new ArrayList<>(lines);
    sorted.sort(null);
    return sorted;
  }

  /** Sellers in OR, ID or CA of auctions in category 10: an inner join, whatever came first. */
  static List<String> q3(List<Person> persons, List<Auction> auctions) {
    Map<Long, Person> byId = new HashMap<>();
    persons.forEach(p -> byId.put(p.id(), p));
    List<String> lines = new ArrayList<>();
    for (Auction a : auctions) {
      Person seller = byId.get(a.seller());
      if (a.category() == Lines.Q3_CATEGORY && seller != null
          && Lines.Q3_STATES.contains(seller.state())) {
        lines.add(Lines.q3(seller, a.id()));
      }
    }
    return lines;
  }

  /**
   * Per category, the average (integer, Flink's AVG of a BIGINT) over its auctions of the highest
   * bid placed between the auction's start and its expiry, both included; auctions without such
   * a bid count for nothing. Flink's q4: no reserve check and no wait for the auction to close
   * (Beam's q4 has both).
   */
  static List<String> q4(List<Auction> auctions, List<Bid> bids) {
    Map<Long, Auction> byId = new HashMap<>();
    auctions.forEach(a -> byId.put(a.id(), a));
    Map<Long, Long> highest = new HashMap<>();
    for (Bid b : bids) {
      Auction a = byId.get(b.auction());
      if (a != null && b.dateTime() >= a.dateTime() && b.dateTime() <= a.expires()) {
        highest.merge(a.id(), b.price(), Math::max);
      }
    }
    Map<Long, long[]> perCategory = new TreeMap<>();
    highest.forEach((id, price) -> {
      long[] sumCount = perCategory.computeIfAbsent(byId.get(id).category(), c -> new long[2]);
      sumCount[0] += price;
      sumCount[1]++;
    });
    List<String> lines = new ArrayList<>();
    perCategory.forEach((c, sc) -> lines.add(Lines.q4(c, sc[0] / sc[1])));
    return lines;
  }

  /** Per 10 s window every 2 s, the auction(s) with the most bids in it. */
  static List<String> q5(List<Bid> bids) {
    Map<Long, Map<Long, Long>> counts = new HashMap<>(); // window start -> auction -> bids
    for (Bid b : bids) {
      long last = Math.floorDiv(b.dateTime(), Lines.SLIDE_MS) * Lines.SLIDE_MS;
      for (long start = last; start > b.dateTime() - Lines.WINDOW_MS; start -= Lines.SLIDE_MS) {
        counts.computeIfAbsent(start, s -> new HashMap<>()).merge(b.auction(), 1L, Long::sum);
      }
    }
    List<String> lines = new ArrayList<>();
    counts.forEach((start, perAuction) -> {
      long most = perAuction.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      perAuction.forEach((auction, n) -> {
        if (n == most) {
          lines.add(Lines.q5(start, auction, n));
        }
      });
    });
    return lines;
  }

  /** Per 10 s tumbling window, the bid(s) with its highest price. */
  static List<String> q7(List<Bid> bids) {
    Map<Long, Long> highest = new HashMap<>();
    for (Bid b : bids) {
      highest.merge(Lines.tumble(b.dateTime()), b.price(), Math::max);
    }
    List<String> lines = new ArrayList<>();
    for (Bid b : bids) {
      long window = Lines.tumble(b.dateTime());
      if (b.price() == highest.get(window)) {
        lines.add(Lines.q7(window, b));
      }
    }
    return lines;
  }

  /** Persons who opened an auction in the 10 s tumbling window they joined in, once per window. */
  static List<String> q8(List<Person> persons, List<Auction> auctions) {
    java.util.Set<String> sellerWindows = new java.util.HashSet<>();
    for (Auction a : auctions) {
      sellerWindows.add(a.seller() + "@" + Lines.tumble(a.dateTime()));
    }
    java.util.Set<String> lines = new java.util.HashSet<>();
    for (Person p : persons) {
      long window = Lines.tumble(p.dateTime());
      if (sellerWindows.contains(p.id() + "@" + window)) {
        lines.add(Lines.q8(p.id(), p.name(), window));
      }
    }
    return new ArrayList<>(lines);
  }

  /**
   * Per bidder, its sessions: bids less than 10 s apart are one session (Flink's session window:
   * each bid opens [t, t + gap), overlapping ones merge), from the first bid to the last plus the
   * gap.
   */
  static List<String> q11(List<Bid> bids) {
    Map<Long, List<Long>> times = new HashMap<>();
    for (Bid b : bids) {
      times.computeIfAbsent(b.bidder(), x -> new ArrayList<>()).add(b.dateTime());
    }
    List<String> lines = new ArrayList<>();
    times.forEach((bidder, ts) -> {
      ts.sort(null);
      long start = ts.get(0);
      long last = start;
      long count = 0;
      for (long t : ts) {
        if (t >= last + Lines.WINDOW_MS) {
          lines.add(Lines.q11(bidder, count, start, last + Lines.WINDOW_MS));
          start = t;
          count = 0;
        }
        last = t;
        count++;
      }
      lines.add(Lines.q11(bidder, count, start, last + Lines.WINDOW_MS));
    });
    return lines;
  }
}
