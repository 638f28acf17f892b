package io.millrace.dsl;

import io.millrace.api.Serde;

/**
 * The name of a stream-table join, and the serdes of the stream's records on their way through
 * its repartition where the stream's key was changed before it. The name is yours: the join's
 * inputs are checked to be co-partitioned under it, and a repartition is the stream
 * {@code <name>-repartition}.
 *
 * @param <K> the key type
 * @param <V> the stream's value type
 */
public final class Joined<K, V> {
  final String name;
  final Serde<K> keySerde;
  final Serde<V> valueSerde;

  private Joined(String name, Serde<K> keySerde, Serde<V> valueSerde) {
    this.name = name;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  /** A join of this name. */
  public static <K, V> Joined<K, V> as(String name) {
    return new Joined<>(name, null, null);
  }

  /** Through a repartition with these serdes (public classes with a no-argument constructor). */
  public Joined<K, V> withSerdes(Serde<K> keySerde, Serde<V> valueSerde) {
    return new Joined<>(name, keySerde, valueSerde);
  }
}
