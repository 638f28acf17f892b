package io.millrace.core.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * One commit interval's staged writes of one {@link StagedEngine}, in a hash map for the point
 * reads and writes every store makes, with a sorted copy only once the engine has been ranged.
 *
 * <p>Why not one sorted map, as before: in the exactly-once count (1M keys, a RocksDB store per
 * task, never ranged) a skip-list put per staged entry was a third of the store flusher's samples
 * and a skip-list get per cache miss an eighth of the loop's; each walks ~15 nodes that are not in
 * the cache, where a hash put or get touches one or two. A store that ranges (windows, sessions,
 * joins) keeps both from its first range on, so its ranges see the writes in order as before.
 *
 * <p>Threads: writes and removes take this object's lock, once a batch, from any thread; reads
 * take none. The sorted copy is made under the lock, so it never misses a write made beside it.
 */
final class StagedWrites {
  /** Marks a staged delete (compared by identity: a real value is never this array). */
  static final byte[] DELETED = new byte[0];
  private final ConcurrentHashMap<Key, byte[]> byKey;
  /** The same writes in unsigned key order, or null until a range needs them. */
  private volatile ConcurrentSkipListMap<byte[], byte[]> sorted;

  /** @param sorted whether to keep the writes in key order from the first (the engine ranges) */
  StagedWrites(boolean sorted) {
    this(sorted, 0);
  }

  /**
   * @param sorted whether to keep the writes in key order from the first (the engine ranges)
   * @param expected how many keys to make room for: the last interval's, so that the map does not
   *     grow through a dozen resizes, each a copy, every commit interval
   */
  StagedWrites(boolean sorted, int expected) {
    this.byKey = new ConcurrentHashMap<>(Math.max(16, expected));
    this.sorted = sorted ? newSorted() : null;
  }

  private static ConcurrentSkipListMap<byte[], byte[]> newSorted() {
    return new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
  }

  /** A key for the hash map: the bytes compared by content, the hash computed once. */
  static final class Key {
    final byte[] bytes;
    private final int hash;

    Key(byte[] bytes) {
      this.bytes = bytes;
      this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }
  }

  /** The value staged for {@code key}: {@link #DELETED} for a delete, null if none. Any thread. */
  byte[] get(Key key) {
    return byKey.get(key);
  }

  /** Stages a batch of writes (a null value deletes); later ones win. */
  synchronized void putAll(List<byte[]> keys, List<byte[]> values) {
    NavigableMap<byte[], byte[]> inOrder = sorted;
    for (int i = 0; i < keys.size(); i++) {
      byte[] key = keys.get(i);
      byte[] value = values.get(i) == null ? DELETED : values.get(i);
      byKey.put(new Key(key), value);
      if (inOrder != null) {
        inOrder.put(key, value);
      }
    }
  }

  /**
   * Removes each of {@code keys} whose staged value is still the one at the same index of {@code
   * values} (by identity): a write staged since stays.
   */
  synchronized void removeIfSame(List<byte[]> keys, List<byte[]> values) {
    NavigableMap<byte[], byte[]> inOrder = sorted;
    for (int i = 0; i < keys.size(); i++) {
      byte[] value = values.get(i);
      byKey.remove(new Key(keys.get(i)), value);
      if (inOrder != null) {
        inOrder.remove(keys.get(i), value);
      }
    }
  }

  /**
   * The writes in unsigned key order, a live view that later writes also reach; made on the first
   * call (a copy of the writes so far, under the lock, so none made beside it is missed).
   */
  NavigableMap<byte[], byte[]> sorted() {
    ConcurrentSkipListMap<byte[], byte[]> inOrder = sorted;
    if (inOrder == null) {
      synchronized (this) {
        inOrder = sorted;
        if (inOrder == null) {
          inOrder = newSorted();
          for (Map.Entry<Key, byte[]> e : byKey.entrySet()) {
            inOrder.put(e.getKey().bytes, e.getValue());
          }
          sorted = inOrder;
        }
      }
    }
    return inOrder;
  }

  /** How many keys are staged. */
  int size() {
    return byKey.size();
  }

  boolean isEmpty() {
    return byKey.isEmpty();
  }

  /** Keys and staged values (deletes as {@link #DELETED}) at one moment, in unsigned key order. */
  record Batch(List<byte[]> keys, List<byte[]> values) {
    /** The values as an engine takes them: a delete as null. */
    List<byte[]> engineValues() {
      List<byte[]> out = new ArrayList<>(values.size());
      for (byte[] v : values) {
        out.add(v == DELETED ? null : v);
      }
      return out;
    }
  }

  /**
   * What is staged now (writes made meanwhile may or may not be in it), sorted by key: RocksDB
   * inserts a batch's keys into its memtable faster in order (each insert starts its search where
   * the last one ended), which the skip list's order gave the apply for free.
   */
  Batch batch() {
    List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(byKey.size());
    byKey.forEach((k, v) -> entries.add(Map.entry(k.bytes, v)));
    entries.sort((x, y) -> Arrays.compareUnsigned(x.getKey(), y.getKey()));
    List<byte[]> keys = new ArrayList<>(entries.size());
    List<byte[]> values = new ArrayList<>(entries.size());
    for (Map.Entry<byte[], byte[]> e : entries) {
      keys.add(e.getKey());
      values.add(e.getValue());
    }
    return new Batch(keys, values);
  }
}
