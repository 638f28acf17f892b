package io.millrace.dsl.function;

/**
 * Makes a join's result from the values of its two sides.
 *
 * @param <L> the left side's value type
 * @param <R> the right side's value type
 * @param <T> the result's type
 */
@FunctionalInterface
public interface ValueJoiner<L, R, T> {
  /**
   * The result of a match, or of a record without one in a left or outer join.
   *
   * @param left the left value, null for a right record without a match (outer join)
   * @param right the right value, null for a left record without a match (left and outer joins)
   */
  T apply(L left, R right);
}
