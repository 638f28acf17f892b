package io.millrace.dsl;

import io.millrace.api.Serde;

/**
 * The name of a stream-stream join and the serdes of what it buffers. The name is yours: each
 * side's records wait for their matches in the stores {@code <name>-left} and
 * {@code <name>-right} (with their changelogs), a side whose key was changed before the join is
 * repartitioned through {@code <name>-left-repartition} or {@code <name>-right-repartition}, and
 * the two inputs are checked to be co-partitioned under it. Both sides' value serdes are needed:
 * the buffers are stores, not the heap.
 *
 * @param <K> the key type
 * @param <L> the left side's value type
 * @param <R> the right side's value type
 */
public final class StreamJoined<K, L, R> {
  final String name;
  final Serde<K> keySerde;
  final Serde<L> leftSerde;
  final Serde<R> rightSerde;

  private StreamJoined(String name, Serde<K> keySerde, Serde<L> leftSerde, Serde<R> rightSerde) {
    this.name = name;
    this.keySerde = keySerde;
    this.leftSerde = leftSerde;
    this.rightSerde = rightSerde;
  }

  /** A join of this name; keys are strings unless given. */
  public static <K, L, R> StreamJoined<K, L, R> as(String name) {
    return new StreamJoined<>(name, null, null, null);
  }

  /** Keys with this serde (a public class with a no-argument constructor). */
  public StreamJoined<K, L, R> withKeySerde(Serde<K> serde) {
    return new StreamJoined<>(name, serde, leftSerde, rightSerde);
  }

  /** The two sides' values with these serdes (public classes with a no-argument constructor). */
  public StreamJoined<K, L, R> withValueSerdes(Serde<L> left, Serde<R> right) {
    return new StreamJoined<>(name, keySerde, left, right);
  }
}
