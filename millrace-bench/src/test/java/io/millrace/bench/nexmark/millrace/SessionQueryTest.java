package io.millrace.bench.nexmark.millrace;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.bench.nexmark.Lines;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.model.QueryModel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Millrace's q11 (bidder sessions, re-keyed by bidder) on the task test driver, its result lines
 * against the plain-Java model's: over generated events in order and out of order, and at the
 * gap's edge, where the DSL's inclusive gap and Flink's exclusive one part.
 */
class SessionQueryTest {
  @TempDir Path tmp;

  private static Bid bid(long auction, long bidder, long time) {
    return new Bid(auction, bidder, 100, "c", "u", time, "");
  }

  private List<String> run(List<?> events) throws Exception {
    return QueryDriver.run(tmp, NexmarkQuery.Q11, Queries.Q11.class, events);
  }

  @Test
  void q11CountsEachBiddersSessionsAsTheModelDoesInOrderAndOutOfOrder() throws Exception {
    for (int group : new int[] {1, 4}) {
      List<Object> events = QueryDriver.generated(group);
      List<String> expected = QueryModel.expected(NexmarkQuery.Q11, events);
      assertThat(expected).hasSizeGreaterThan(100);
      assertThat(run(events)).as("groups of %d", group).isEqualTo(expected);
    }
  }

  @Test
  void q11StartsANewSessionAtABidExactlyTheGapAfterTheLast() throws Exception {
    long gap = Lines.WINDOW_MS;
    // Bidder 1: 0 and gap - 1 one session, 2 gap - 1 (the gap after it) a new one.
    // Bidder 2: bids on two auctions (two upstream keys), 5 and 5 + gap: two sessions.
    List<Object> events = List.of(bid(10, 1, 0), bid(11, 2, 5), bid(10, 1, gap - 1),
        bid(12, 2, 5 + gap), bid(11, 1, 2 * gap - 1));
    assertThat(run(events))
        .isEqualTo(QueryModel.expected(NexmarkQuery.Q11, events))
        .containsExactlyInAnyOrder(Lines.q11(1, 2, 0, 2 * gap - 1), Lines.q11(1, 1, 2 * gap - 1,
            3 * gap - 1), Lines.q11(2, 1, 5, 5 + gap), Lines.q11(2, 1, 5 + gap, 5 + 2 * gap));
  }

  @Test
  void q11MergesTwoSessionsWhenABidBetweenThemComesLate() throws Exception {
    long gap = Lines.WINDOW_MS;
    // 0 and 10,500 are two sessions (more than the gap apart) until 9,600 (behind the latter,
    // within the sources' out-of-order bound) comes within the gap of both.
    List<Object> events = List.of(bid(10, 1, 0), bid(11, 1, 10_500), bid(12, 1, 9_600));
    assertThat(run(events))
        .isEqualTo(QueryModel.expected(NexmarkQuery.Q11, events))
        .containsExactly(Lines.q11(1, 3, 0, 10_500 + gap));
  }
}
