package io.millrace.dsl.plan;

import io.millrace.dsl.function.Aggregator;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * How records fold into an aggregate.
 *
 * @param initializer the aggregate before a key's first record, or null for a reduce (whose
 *     first value is the aggregate)
 * @param aggregator folds a record in
 * @param merger combines two aggregates of the same key (panes into a window), or null where
 *     none was given (then a window must be one pane)
 */
public record Aggregation(Kind kind, Supplier<Object> initializer,
    Aggregator<Object, Object, Object> aggregator, BinaryOperator<Object> merger) {
  /** The three folds. */
  public enum Kind {
    COUNT("count"), REDUCE("reduce"), AGGREGATE("aggregate");

    private final String word;

    Kind(String word) {
      this.word = word;
    }

    /** The operator's name in messages. */
    public String word() {
      return word;
    }
  }

  /** Counts records (longs). */
  public static Aggregation count() {
    return new Aggregation(Kind.COUNT, () -> 0L, (k, v, a) -> (Long) a + 1,
        (a, b) -> (Long) a + (Long) b);
  }

  /** The aggregate of a key after {@code value}, from {@code current} (null: none yet). */
  public Object fold(Object key, Object value, Object current) {
    if (current == null) {
      if (initializer == null) {
        return value; // a reduce starts from its first value
      }
      current = initializer.get();
    }
    return aggregator.apply(key, value, current);
  }
}
