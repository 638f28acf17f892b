package io.millrace.api.store;

import java.util.List;

/**
 * A task's local key-value state, declared in the job's properties ({@code stores.<name>.*}) and
 * reached with {@link io.millrace.api.TaskContext#store}. Each task has its own instance of each
 * store, holding only its partition's keys.
 *
 * <p>Reads see the task's own writes at once. Writes are kept in an object cache and reach the
 * underlying store (RocksDB or memory) and its changelog in one batch at each commit, or when
 * {@code stores.<name>.write.batch.size} writes are waiting; a restart restores the store from its
 * local files and its changelog as of the last commit, so state and input offsets agree
 * (at-least-once: messages after the last commit are processed again).
 *
 * <p>Iteration order is the order of the serialized keys as unsigned bytes (RocksDB's order):
 * for {@code string} keys that is code-point order, for {@code long} keys numeric order of
 * non-negative numbers.
 *
 * <p>Threading: a store belongs to its task; call it from the task's own callbacks (the loop
 * thread), not from an async callback's thread. A store is not thread-safe: a {@code StreamTask}
 * on the worker pool ({@code job.container.thread.pool.size}) with {@code task.max.concurrency}
 * above 1 processes several of its messages at once and must serialize its calls to a store
 * itself (for example {@code synchronized (store)}).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface KeyValueStore<K, V> {
  /** The value of {@code key}, or {@code null} if it has none. */
  V get(K key);

  /**
   * Sets the value of {@code key}.
   *
   * @throws NullPointerException if the key or the value is null (use {@link #delete})
   */
  void put(K key, V value);

  /** Sets several values, as {@link #put} does one by one. */
  void putAll(List<KeyValue<K, V>> entries);

  /** Removes {@code key} and its value; does nothing if it has none. */
  void delete(K key);

  /**
   * The entries with keys from {@code from} (inclusive) to {@code to} (exclusive), in key order.
   * The iterator must be closed (try-with-resources); one left open is reported at the next
   * commit.
   */
  KeyValueIterator<K, V> range(K from, K to);

  /**
   * The entries whose serialized keys start with the serialized {@code prefix}, in key order (for
   * {@code string} keys: the keys that start with the prefix). Must be closed.
   */
  KeyValueIterator<K, V> prefix(K prefix);

  /** Every entry, in key order. Must be closed. */
  KeyValueIterator<K, V> all();
}
