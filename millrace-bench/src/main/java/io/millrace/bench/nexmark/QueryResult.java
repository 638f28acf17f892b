package io.millrace.bench.nexmark;

import io.millrace.bench.nexmark.events.EventCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A query's result made from its output records, in the order they were written to a partition,
 * to compare with the model: the sorted lines of every record of an APPEND query, the sorted
 * lines of the last value per key of a TABLE query (a null value deletes its key).
 */
public final class QueryResult {
  private final NexmarkQuery query;
  private final List<String> appended = new ArrayList<>();
  private final Map<String, String> table = new LinkedHashMap<>();

  /** An empty result of {@code query}. */
  public QueryResult(NexmarkQuery query) {
    this.query = query;
  }

  /** One output record (key and value bytes as written). */
  public void add(byte[] key, byte[] value) {
    if (query.output() == NexmarkQuery.Output.APPEND) {
      appended.add(text(value));
      return;
    }
    String k = key == null ? "" : HexFormat.of().formatHex(key);
    if (value == null) {
      table.remove(k);
    } else {
      table.put(k, text(value));
    }
  }

  private String text(byte[] value) {
    return query == NexmarkQuery.Q0 ? Lines.q0(EventCodec.decodeBid(value))
        : new String(value, StandardCharsets.UTF_8);
  }

  /** The sorted result lines. */
  public List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (String v : query.output() == NexmarkQuery.Output.APPEND ? appended : table.values()) {
      if (!v.isEmpty()) {
        lines.addAll(Arrays.asList(v.split("\n")));
      }
    }
    lines.sort(null);
    return lines;
  }

  /**
   * {@code "match"} if the lines are the expected ones, else {@code "differs"} and what first
   * differs (the counts, and the first line missing and the first one too many).
   */
  public static String compare(List<String> expected, List<String> actual) {
    if (expected.equals(actual)) {
      return "match";
    }
    List<String> missing = new ArrayList<>(expected);
    List<String> extra = new ArrayList<>(actual);
    // Multiset differences of two sorted lists.
    List<String> m = new ArrayList<>();
    List<String> x = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < missing.size() || j < extra.size()) {
      int c = i == missing.size() ? 1 : j == extra.size() ? -1
          : missing.get(i).compareTo(extra.get(j));
      if (c == 0) {
        i++;
        j++;
      } else if (c < 0) {
        m.add(missing.get(i++));
      } else {
        x.add(extra.get(j++));
      }
    }
    return "differs: expected " + expected.size() + " lines, got " + actual.size() + "; "
        + m.size() + " missing" + (m.isEmpty() ? "" : " (first: " + m.get(0) + ")") + ", "
        + x.size() + " unexpected" + (x.isEmpty() ? "" : " (first: " + x.get(0) + ")");
  }
}
