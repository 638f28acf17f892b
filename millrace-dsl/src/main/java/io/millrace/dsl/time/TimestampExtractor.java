package io.millrace.dsl.time;

/**
 * A record's event time, read from the record itself (a field of the value), for a source whose
 * system's timestamps are not the event's own (a file has none).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
@FunctionalInterface
public interface TimestampExtractor<K, V> {
  /**
   * The record's event time.
   *
   * @param recordTimestamp the timestamp its system gave it, or -1 if none
   * @return milliseconds since the epoch; -1 for a record without a time (a windowed operator
   *     that gets one fails, naming itself)
   */
  long extract(K key, V value, long recordTimestamp);
}
