package io.millrace.bench.nexmark.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each query's model on a handful of events whose answer is worked out by hand. */
class QueryModelTest {
  private static Bid bid(long auction, long bidder, long price, long time) {
    return new Bid(auction, bidder, price, "Google", "u", time, "x");
  }

  private static Person person(long id, String name, String state, long time) {
    return new Person(id, name, "e", "c", "Bend", state, time, "");
  }

  private static Auction auction(long id, long seller, long category, long start, long expires) {
    return new Auction(id, "i", "d", 1, 2, start, expires, seller, category, "");
  }

  @Test
  void q0PassesEveryBidWithEveryField() {
    assertThat(QueryModel.expected(NexmarkQuery.Q0, List.of(bid(1, 2, 300, 4),
        person(1, "p", "OR", 0)))).containsExactly("1,2,300,Google,u,4,x");
  }

  @Test
  void q1ConvertsThePriceToEurosExactly() {
    // 1,001 cents x 0.908 = 908.908 cents.
    assertThat(QueryModel.expected(NexmarkQuery.Q1, List.of(bid(1, 2, 1001, 4))))
        .containsExactly("1,2,908.908,4,x");
  }

  @Test
  void q2KeepsBidsOnAuctionsThatAreMultiplesOf123() {
    assertThat(QueryModel.expected(NexmarkQuery.Q2, List.of(bid(123, 1, 5, 0), bid(124, 1, 6, 0),
        bid(246, 1, 7, 0)))).containsExactly("123,5", "246,7");
  }

  @Test
  void q3JoinsSellersInOrIdCaWithTheirCategory10AuctionsWhicheverCameFirst() {
    List<Object> events = List.of(
        auction(500, 1, 10, 0, 9), // before its seller: still joins
        person(1, "Ann", "OR", 5),
        person(2, "Bob", "WA", 5), auction(501, 2, 10, 6, 9), // wrong state
        auction(502, 1, 11, 7, 9), // wrong category
        person(3, "Cy", "CA", 8), auction(503, 3, 10, 9, 20));
    assertThat(QueryModel.expected(NexmarkQuery.Q3, events))
        .containsExactly("Ann,Bend,OR,500", "Cy,Bend,CA,503");
  }

  @Test
  void q4AveragesPerCategoryTheHighestBidInsideEachAuctionsLifetime() {
    List<Object> events = List.of(
        auction(1, 9, 10, 100, 200), bid(1, 5, 50, 99) /* before it opened */,
        bid(1, 5, 70, 100), bid(1, 5, 90, 200) /* at expiry: counts */, bid(1, 5, 999, 201),
        auction(2, 9, 10, 100, 300), bid(2, 5, 20, 150),
        auction(3, 9, 11, 0, 10), // no bid at all: not in the average
        bid(4, 5, 10, 150)); // no such auction
    // Category 10: (90 + 20) / 2 = 55.
    assertThat(QueryModel.expected(NexmarkQuery.Q4, events)).containsExactly("10,55");
  }

  @Test
  void q5FindsTheAuctionsWithTheMostBidsInEachSlidingWindow() {
    List<Object> events = List.of(bid(1, 0, 1, 1_000), bid(1, 0, 1, 3_000), bid(2, 0, 1, 3_500),
        bid(2, 0, 1, 11_000));
    // Windows of 10 s every 2 s holding some bid: starts -8 s .. 10 s.
    assertThat(QueryModel.expected(NexmarkQuery.Q5, events)).containsExactlyInAnyOrder(
        "-8000,1,1", "-6000,1,2", "-4000,1,2", "-2000,1,2", "0,1,2",
        "2000,2,2", "4000,2,1", "6000,2,1", "8000,2,1", "10000,2,1");
  }

  @Test
  void q7KeepsEveryBidAtItsTumblingWindowsHighestPrice() {
    List<Object> events = List.of(bid(1, 1, 5, 0), bid(2, 2, 9, 9_999), bid(3, 3, 9, 5_000),
        bid(4, 4, 1, 10_000));
    assertThat(QueryModel.expected(NexmarkQuery.Q7, events)).containsExactly(
        "0,2,9,2,9999,x", "0,3,9,3,5000,x", "10000,4,1,4,10000,x");
  }

  @Test
  void q8FindsPersonsWhoSoldInTheWindowTheyJoined() {
    List<Object> events = List.of(person(1, "Ann", "OR", 1_000), auction(7, 1, 10, 9_999, 0),
        auction(8, 1, 10, 2_000, 0), // twice in one window: once
        person(2, "Bob", "OR", 9_000), auction(9, 2, 10, 10_000, 0)); // the next window
    assertThat(QueryModel.expected(NexmarkQuery.Q8, events)).containsExactly("1,Ann,0");
  }

  @Test
  void q11CutsEachBiddersSessionsAtAGapOfTenSeconds() {
    List<Object> events = new ArrayList<>(List.of(bid(1, 7, 1, 0), bid(1, 7, 1, 9_999),
        bid(1, 7, 1, 19_999) /* exactly the gap: a new session */, bid(1, 8, 1, 5)));
    Collections.reverse(events); // arrival order does not matter
    assertThat(QueryModel.expected(NexmarkQuery.Q11, events)).containsExactly(
        "7,1,19999,29999", "7,2,0,19999", "8,1,5,10005");
  }

  @Test
  void anUnknownQueryNameIsRefusedNamingTheKnownOnes() {
    assertThat(NexmarkQuery.named("Q11")).isEqualTo(NexmarkQuery.Q11);
    assertThatThrownBy(() -> NexmarkQuery.named("q6"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'q6'")
        .hasMessageContaining("q0,q1,q2,q3,q4,q5,q7,q8,q11");
  }
}
