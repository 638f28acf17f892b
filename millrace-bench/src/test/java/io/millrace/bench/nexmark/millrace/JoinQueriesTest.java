package io.millrace.bench.nexmark.millrace;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import io.millrace.bench.nexmark.model.QueryModel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Millrace's join queries (q3, q4, q8) on the task test driver, their result lines against the
 * plain-Java model's: over generated events in order and out of order, and where an auction comes
 * before its seller.
 */
class JoinQueriesTest {
  @TempDir Path tmp;

  private List<String> run(NexmarkQuery query, Class<?> app, List<?> events) throws Exception {
    return QueryDriver.run(tmp, query, app, events);
  }

  private static List<Object> generated(int outOfOrderGroup) {
    return QueryDriver.generated(outOfOrderGroup);
  }

  private static Person person(long id, String name, String state, long time) {
    return new Person(id, name, "e", "c", "Bend", state, time, "");
  }

  private static Auction auction(long id, long seller, long category, long start) {
    return new Auction(id, "i", "d", 1, 2, start, start + 100_000, seller, category, "");
  }

  @Test
  void q3JoinsSellersWithTheirAuctionsAsTheModelDoes() throws Exception {
    List<Object> events = generated(1);
    List<String> expected = QueryModel.expected(NexmarkQuery.Q3, events);
    assertThat(expected).isNotEmpty();
    assertThat(run(NexmarkQuery.Q3, Queries.Q3.class, events)).isEqualTo(expected);
  }

  @Test
  void q3JoinsAnAuctionThatCameBeforeItsSeller() throws Exception {
    List<Object> events = List.of(auction(500, 1, 10, 0), person(1, "Ann", "OR", 5),
        person(2, "Bob", "WA", 5), auction(501, 2, 10, 6), auction(502, 1, 11, 7),
        auction(503, 1, 10, 8), person(3, "Cy", "CA", 8), auction(504, 3, 10, 9));
    assertThat(run(NexmarkQuery.Q3, Queries.Q3.class, events))
        .isEqualTo(QueryModel.expected(NexmarkQuery.Q3, events))
        .containsExactly("Ann,Bend,OR,500", "Ann,Bend,OR,503", "Cy,Bend,CA,504");
  }

  @Test
  void q8FindsNewSellersPerWindowAsTheModelDoesInOrderAndOutOfOrder() throws Exception {
    for (int group : new int[] {1, 4}) {
      List<Object> events = generated(group);
      List<String> expected = QueryModel.expected(NexmarkQuery.Q8, events);
      assertThat(expected).isNotEmpty();
      assertThat(run(NexmarkQuery.Q8, Queries.Q8.class, events)).as("groups of %d", group)
          .isEqualTo(expected);
    }
  }

  @Test
  void q8KeepsOnlyAnAuctionInThePersonsOwnTumblingWindow() throws Exception {
    long w = Lines.WINDOW_MS;
    List<Object> events = List.of(person(1, "Ann", "OR", w - 1), auction(500, 1, 10, w),
        person(2, "Bob", "WA", w + 1), auction(501, 2, 10, 2 * w - 1),
        auction(502, 2, 10, 2 * w + 5));
    assertThat(run(NexmarkQuery.Q8, Queries.Q8.class, events))
        .isEqualTo(QueryModel.expected(NexmarkQuery.Q8, events))
        .containsExactly(Lines.q8(2, "Bob", w));
  }

  @Test
  void q4AveragesTheWinningPricesPerCategoryAsTheModelDoesInOrderAndOutOfOrder()
      throws Exception {
    for (int group : new int[] {1, 4}) {
      List<Object> events = generated(group);
      List<String> expected = QueryModel.expected(NexmarkQuery.Q4, events);
      assertThat(expected).isNotEmpty();
      assertThat(run(NexmarkQuery.Q4, Queries.Q4.class, events)).as("groups of %d", group)
          .isEqualTo(expected);
    }
  }

  @Test
  void q4CountsABidThatCameBeforeItsAuctionAndOnlyBidsInItsTime() throws Exception {
    Auction first = auction(500, 1, 10, 1_000); // open 1,000 to 101,000
    List<Object> events = List.of(new Bid(500, 2, 70, "c", "u", 1_500, ""), first,
        new Bid(500, 3, 90, "c", "u", 500, ""), // before its start
        new Bid(500, 3, 80, "c", "u", 2_000, ""),
        auction(501, 1, 10, 3_000), new Bid(501, 2, 40, "c", "u", 3_500, ""),
        new Bid(501, 2, 50, "c", "u", 3_600, ""));
    assertThat(run(NexmarkQuery.Q4, Queries.Q4.class, events))
        .isEqualTo(QueryModel.expected(NexmarkQuery.Q4, events))
        .containsExactly(Lines.q4(10, (80 + 50) / 2));
  }
}
