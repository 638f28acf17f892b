package io.millrace.core.store;

import java.util.Arrays;

/**
 * The object cache's map: a hash table whose entries are also linked from eldest to newest use,
 * the links kept in the entries themselves. It does what an access-ordered {@code LinkedHashMap}
 * does for {@link CachedStore}, without the map's own node per entry and, for byte-array keys
 * (compared by content), without a wrapper object per lookup: a miss then costs one entry instead
 * of three objects, and a lookup one pointer less to follow.
 *
 * <p>Keys are compared with {@code equals}, byte arrays by content. Single-threaded.
 *
 * @param <K> the key type
 */
final class CacheMap<K> {
  /** A cached key, its value (null: it has none) and its flush state, linked into the map. */
  static final class Entry<K> {
    final K key;
    final int hash;
    Object value;
    /** Written since the last flush. */
    boolean dirty;
    /** The deferred flush that holds the value (see StoreFlusher#flush); 0: in the engine. */
    long flushedIn;
    private Entry<K> nextInBucket;
    private Entry<K> older;
    private Entry<K> newer;

    Entry(K key, int hash, Object value) {
      this.key = key;
      this.hash = hash;
      this.value = value;
    }
  }

  private Entry<K>[] table;
  private int size;
  /** The least recently used entry, and the most. */
  private Entry<K> eldest;
  private Entry<K> newest;

  /** A map sized for {@code expected} entries. */
  CacheMap(int expected) {
    table = newTable(Integer.highestOneBit(Math.max(16, expected * 4 / 3)) << 1);
  }

  /** The hash {@link #get} and {@link #add} take for {@code key}. */
  static int hash(Object key) {
    int h = key instanceof byte[] bytes ? Arrays.hashCode(bytes) : key.hashCode();
    return h ^ (h >>> 16); // the table uses the low bits: fold the high ones in
  }

  /** The entry of {@code key}, now the newest, or null. */
  Entry<K> get(Object key, int hash) {
    for (Entry<K> e = table[hash & (table.length - 1)]; e != null; e = e.nextInBucket) {
      if (e.hash == hash && sameKey(e.key, key)) {
        if (e != newest) {
          unlinkUse(e);
          linkNewest(e);
        }
        return e;
      }
    }
    return null;
  }

  /** Adds an entry whose key the map does not hold, as the newest. */
  void add(Entry<K> e) {
    if (size >= table.length - (table.length >>> 2)) {
      resize(); // load factor 0.75
    }
    int i = e.hash & (table.length - 1);
    e.nextInBucket = table[i];
    table[i] = e;
    linkNewest(e);
    size++;
  }

  /** Removes an entry the map holds. */
  void remove(Entry<K> e) {
    int i = e.hash & (table.length - 1);
    if (table[i] == e) {
      table[i] = e.nextInBucket;
    } else {
      Entry<K> before = table[i];
      while (before.nextInBucket != e) {
        before = before.nextInBucket;
      }
      before.nextInBucket = e.nextInBucket;
    }
    e.nextInBucket = null;
    unlinkUse(e);
    size--;
  }

  /** The least recently used entry, or null if the map is empty. */
  Entry<K> eldest() {
    return eldest;
  }

  /** The entry used after {@code e}, or null if it is the newest. */
  Entry<K> newerThan(Entry<K> e) {
    return e.newer;
  }

  int size() {
    return size;
  }

  private static boolean sameKey(Object a, Object b) {
    return a == b || (a instanceof byte[] x ? b instanceof byte[] y && Arrays.equals(x, y)
        : a.equals(b));
  }

  private void linkNewest(Entry<K> e) {
    e.older = newest;
    e.newer = null;
    if (newest == null) {
      eldest = e;
    } else {
      newest.newer = e;
    }
    newest = e;
  }

  private void unlinkUse(Entry<K> e) {
    if (e.older == null) {
      eldest = e.newer;
    } else {
      e.older.newer = e.newer;
    }
    if (e.newer == null) {
      newest = e.older;
    } else {
      e.newer.older = e.older;
    }
    e.older = null;
    e.newer = null;
  }

  private void resize() {
    Entry<K>[] old = table;
    table = newTable(old.length << 1);
    for (Entry<K> head : old) {
      for (Entry<K> e = head; e != null; ) {
        Entry<K> next = e.nextInBucket;
        int i = e.hash & (table.length - 1);
        e.nextInBucket = table[i];
        table[i] = e;
        e = next;
      }
    }
  }

  @SuppressWarnings("unchecked") // an array of a generic type, filled only with Entry<K>
  private static <K> Entry<K>[] newTable(int length) {
    return (Entry<K>[]) new Entry<?>[length];
  }
}
