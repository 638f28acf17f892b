package io.millrace.api.store;

/**
 * One entry of a {@link KeyValueStore}.
 *
 * @param key the key
 * @param value the value
 * @param <K> the key type
 * @param <V> the value type
 */
public record KeyValue<K, V>(K key, V value) {}
