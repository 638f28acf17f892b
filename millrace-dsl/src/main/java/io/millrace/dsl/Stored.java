package io.millrace.dsl;

import io.millrace.api.Serde;

/**
 * The store a stateful operator keeps its state in. The name is required and is yours: it names
 * the store ({@code stores.<name>.*}), its changelog and, where the operator repartitions, the
 * intermediate stream, so they stay the same however the pipeline around it changes.
 *
 * @param <K> the key type
 * @param <V> the type of what is stored per key (the count, the aggregate)
 */
public final class Stored<K, V> {
  final String name;
  final Serde<K> keySerde;
  final Serde<V> valueSerde;

  private Stored(String name, Serde<K> keySerde, Serde<V> valueSerde) {
    this.name = name;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  /**
   * A store of this name; keys are strings and values as the operator chooses (longs for a
   * count) unless given.
   */
  public static <K, V> Stored<K, V> as(String name) {
    return new Stored<>(name, null, null);
  }

  /** Keys in the store with this serde (a public class with a no-argument constructor). */
  public Stored<K, V> withKeySerde(Serde<K> serde) {
    return new Stored<>(name, serde, valueSerde);
  }

  /** Values in the store with this serde (a public class with a no-argument constructor). */
  public Stored<K, V> withValueSerde(Serde<V> serde) {
    return new Stored<>(name, keySerde, serde);
  }
}
