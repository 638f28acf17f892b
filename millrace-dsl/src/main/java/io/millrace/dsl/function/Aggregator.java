package io.millrace.dsl.function;

/**
 * Folds one record into a key's aggregate ({@code aggregate} in a grouped or windowed stream).
 *
 * @param <K> the key type
 * @param <V> the value type
 * @param <A> the aggregate type
 */
@FunctionalInterface
public interface Aggregator<K, V, A> {
  /**
   * The aggregate after {@code value}.
   *
   * @param aggregate the aggregate so far (the initializer's value for a key's first record)
   * @return the new aggregate; never {@code null}
   */
  A apply(K key, V value, A aggregate);
}
