package io.millrace.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EventCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a system's output records become a result to compare with the model. */
class QueryResultTest {
  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aTableQueryKeepsTheLastValuePerKeyAndANullDeletesIt() {
    QueryResult result = new QueryResult(NexmarkQuery.Q7);
    result.add(utf8("0"), utf8("0,1,5,1,1,x"));
    result.add(utf8("10"), utf8("10,2,5,1,1,x"));
    result.add(utf8("0"), utf8("0,3,9,1,1,x\n0,4,9,1,2,x")); // an update with a tie
    result.add(utf8("20"), utf8("20,2,5,1,1,x"));
    result.add(utf8("20"), null);
    assertThat(result.lines()).containsExactly("0,3,9,1,1,x", "0,4,9,1,2,x", "10,2,5,1,1,x");
  }

  @Test
  void anAppendQueryKeepsEveryRecordAndQ0ReadsBids() {
    QueryResult q2 = new QueryResult(NexmarkQuery.Q2);
    q2.add(utf8("k"), utf8("246,7"));
    q2.add(utf8("k"), utf8("123,5"));
    q2.add(utf8("k"), utf8("123,5"));
    assertThat(q2.lines()).containsExactly("123,5", "123,5", "246,7");
    QueryResult q0 = new QueryResult(NexmarkQuery.Q0);
    q0.add(null, EventCodec.encode(new Bid(1, 2, 3, "c", "u", 4, "e")));
    assertThat(q0.lines()).containsExactly("1,2,3,c,u,4,e");
  }

  @Test
  void aComparisonNamesTheFirstMissingAndUnexpectedLines() {
    assertThat(QueryResult.compare(List.of("a", "b"), List.of("a", "b"))).isEqualTo("match");
    assertThat(QueryResult.compare(List.of("a", "b", "b"), List.of("a", "b", "c")))
        .isEqualTo("differs: expected 3 lines, got 3; 1 missing (first: b), 1 unexpected "
            + "(first: c)");
  }
}
