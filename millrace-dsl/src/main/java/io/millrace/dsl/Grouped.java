package io.millrace.dsl;

import io.millrace.api.Serde;

/**
 * The serdes of records on their way through a repartition (the intermediate stream is a Kafka
 * topic under Kafka, so its records are written as bytes). Not needed on the embedded default,
 * whose memory streams keep objects.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Grouped<K, V> {
  final Serde<K> keySerde;
  final Serde<V> valueSerde;

  private Grouped(Serde<K> keySerde, Serde<V> valueSerde) {
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  /** Through the repartition with these serdes. */
  public static <K, V> Grouped<K, V> with(Serde<K> keySerde, Serde<V> valueSerde) {
    return new Grouped<>(keySerde, valueSerde);
  }

  static <K, V> Grouped<K, V> none() {
    return new Grouped<>(null, null);
  }
}
