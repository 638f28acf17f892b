package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.dsl.time.TimestampExtractor;
import java.time.Duration;

/**
 * How a pipeline reads an input stream of the job: its serdes (else the stream's
 * {@code streams.<id>.key.serde}/{@code value.serde}), where a record's event time comes from
 * (else its system's timestamp), and how far out of order records may come.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Source<K, V> {
  final String streamId;
  final Serde<K> keySerde;
  final Serde<V> valueSerde;
  final TimestampExtractor<K, V> extractor;
  final long maxOutOfOrderMs;

  private Source(String streamId, Serde<K> keySerde, Serde<V> valueSerde,
      TimestampExtractor<K, V> extractor, long maxOutOfOrderMs) {
    this.streamId = streamId;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.extractor = extractor;
    this.maxOutOfOrderMs = maxOutOfOrderMs;
  }

  /** The input stream with this id in the job's properties ({@code streams.<id>.*}). */
  public static <K, V> Source<K, V> of(String streamId) {
    return new Source<>(streamId, null, null, null, 0);
  }

  /** Read with these serdes (public classes with a no-argument constructor). */
  public Source<K, V> withSerdes(Serde<K> keySerde, Serde<V> valueSerde) {
    return new Source<>(streamId, keySerde, valueSerde, extractor, maxOutOfOrderMs);
  }

  /** Event time from the record itself. */
  public Source<K, V> withTimestamps(TimestampExtractor<K, V> extractor) {
    return new Source<>(streamId, keySerde, valueSerde, extractor, maxOutOfOrderMs);
  }

  /**
   * Records may come up to {@code bound} behind the latest seen in their partition and still be
   * on time: the partition's watermark trails its latest timestamp by this much (default 0).
   */
  public Source<K, V> withMaxOutOfOrder(Duration bound) {
    if (bound == null || bound.isNegative()) {
      throw new IllegalArgumentException("out-of-orderness must be zero or more: " + bound);
    }
    return new Source<>(streamId, keySerde, valueSerde, extractor, bound.toMillis());
  }
}
