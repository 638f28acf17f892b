package io.millrace.core.store;

import java.util.Arrays;

/**
 * The object cache's map: a hash table whose entries are also linked from eldest to newest use.
 * It does what an access-ordered {@code LinkedHashMap} does for {@link CachedStore}, with each
 * entry's state (key, value, hash, flush state, links) kept in parallel arrays at the entry's
 * <em>slot</em> instead of in an object of its own.
 *
 * <p>Why slots: in a store over many keys (a count over 1M keys, say) a cached entry lives for
 * seconds, long enough to be copied by every young collection until it is promoted, and the young
 * pauses' copying is what such a job's output waits for. An entry object per key (48 bytes) was
 * half the objects and two thirds of the bytes the collector copied for a cached 8-byte key; with
 * slots it copies only the key and the value the task gave it (a count's small {@code Long} is the
 * JDK's shared one). The arrays are a few objects per store, promoted once. The price, measured:
 * a read-modify-write of a cached key about 6% slower (its state spread over several arrays;
 * the ints of a slot side by side in one array did not recover it), a count over 1M keys 4%
 * faster (docs/benchmarks.md, "The cache's entries in slots").
 *
 * <p>Byte-array keys are compared by content, without a wrapper object per lookup; other keys
 * with {@code equals}. A slot stays the entry's until {@link #remove}; a removed slot is reused.
 * Single-threaded.
 *
 * @param <K> the key type
 */
final class CacheMap<K> {
  /** No slot: not found, no eldest, no newer entry. */
  static final int NONE = -1;

  /** Bucket heads: the first slot of each chain, or NONE. Its length is a power of two. */
  private int[] table;
  private Object[] keys;
  /** A slot's value: null when the key is known to have none. */
  private Object[] values;
  private int[] hashes;
  /** The deferred flush that holds the slot's value (see StoreFlusher#flush); 0: in the engine. */
  private long[] flushedIn;
  /** Written since the last flush. */
  private boolean[] dirty;
  /** The next slot in the same bucket, or, for a free slot, the next free one. */
  private int[] next;
  private int[] older;
  private int[] newer;
  private int size;
  /** Slots below this have been handed out at least once; the rest were never used. */
  private int used;
  /** Removed slots, for reuse, linked through {@link #next}. */
  private int free = NONE;
  private int eldest = NONE;
  private int newest = NONE;

  /** A map sized for {@code expected} entries (it grows past them). */
  CacheMap(int expected) {
    allocate(Integer.highestOneBit(Math.max(16, expected * 4 / 3)) << 1);
  }

  /** The hash {@link #get} and {@link #add} take for {@code key}. */
  static int hash(Object key) {
    int h = key instanceof byte[] bytes ? Arrays.hashCode(bytes) : key.hashCode();
    return h ^ (h >>> 16); // the table uses the low bits: fold the high ones in
  }

  /** The slot of {@code key}, now the newest, or NONE. */
  int get(Object key, int hash) {
    for (int s = table[hash & (table.length - 1)]; s != NONE; s = next[s]) {
      if (hashes[s] == hash && sameKey(keys[s], key)) {
        if (s != newest) {
          unlinkUse(s);
          linkNewest(s);
        }
        return s;
      }
    }
    return NONE;
  }

  /** Adds {@code key}, which the map does not hold, as the newest entry, clean; its slot. */
  int add(K key, int hash, Object value) {
    int s = free;
    if (s != NONE) {
      free = next[s];
    } else {
      if (used == keys.length) {
        grow();
      }
      s = used++;
    }
    keys[s] = key;
    values[s] = value;
    hashes[s] = hash;
    dirty[s] = false;
    flushedIn[s] = 0;
    int bucket = hash & (table.length - 1);
    next[s] = table[bucket];
    table[bucket] = s;
    linkNewest(s);
    size++;
    return s;
  }

  /** Removes the entry at slot {@code s}, which the map holds; the slot may be reused. */
  void remove(int s) {
    int bucket = hashes[s] & (table.length - 1);
    if (table[bucket] == s) {
      table[bucket] = next[s];
    } else {
      int before = table[bucket];
      while (next[before] != s) {
        before = next[before];
      }
      next[before] = next[s];
    }
    unlinkUse(s);
    keys[s] = null; // the key and value are garbage now: hold them no longer
    values[s] = null;
    next[s] = free;
    free = s;
    size--;
  }

  /** The least recently used entry's slot, or NONE if the map is empty. */
  int eldest() {
    return eldest;
  }

  /** The slot of the entry used after the one at {@code s}, or NONE if it is the newest. */
  int newerThan(int s) {
    return newer[s];
  }

  int size() {
    return size;
  }

  @SuppressWarnings("unchecked") // only keys of type K are added
  K key(int s) {
    return (K) keys[s];
  }

  Object value(int s) {
    return values[s];
  }

  void value(int s, Object value) {
    values[s] = value;
  }

  boolean dirty(int s) {
    return dirty[s];
  }

  void dirty(int s, boolean isDirty) {
    dirty[s] = isDirty;
  }

  long flushedIn(int s) {
    return flushedIn[s];
  }

  void flushedIn(int s, long flush) {
    flushedIn[s] = flush;
  }

  private static boolean sameKey(Object a, Object b) {
    return a == b || (a instanceof byte[] x ? b instanceof byte[] y && Arrays.equals(x, y)
        : a.equals(b));
  }

  private void linkNewest(int s) {
    older[s] = newest;
    newer[s] = NONE;
    if (newest == NONE) {
      eldest = s;
    } else {
      newer[newest] = s;
    }
    newest = s;
  }

  private void unlinkUse(int s) {
    if (older[s] == NONE) {
      eldest = newer[s];
    } else {
      newer[older[s]] = newer[s];
    }
    if (newer[s] == NONE) {
      newest = older[s];
    } else {
      older[newer[s]] = older[s];
    }
  }

  /** Empty arrays for a table of {@code tableLength} buckets, filled to 3/4 at most. */
  private void allocate(int tableLength) {
    int slots = tableLength - (tableLength >>> 2); // load factor 0.75
    table = emptyTable(tableLength);
    keys = new Object[slots];
    values = new Object[slots];
    hashes = new int[slots];
    flushedIn = new long[slots];
    dirty = new boolean[slots];
    next = new int[slots];
    older = new int[slots];
    newer = new int[slots];
  }

  /** Doubles the table and the slots; every slot is in use, so each keeps its number. */
  private void grow() {
    int slots = keys.length << 1;
    keys = Arrays.copyOf(keys, slots);
    values = Arrays.copyOf(values, slots);
    hashes = Arrays.copyOf(hashes, slots);
    flushedIn = Arrays.copyOf(flushedIn, slots);
    dirty = Arrays.copyOf(dirty, slots);
    older = Arrays.copyOf(older, slots);
    newer = Arrays.copyOf(newer, slots);
    next = new int[slots]; // the chains are rebuilt for the larger table
    table = emptyTable(table.length << 1);
    for (int s = 0; s < used; s++) {
      int bucket = hashes[s] & (table.length - 1);
      next[s] = table[bucket];
      table[bucket] = s;
    }
  }

  private static int[] emptyTable(int length) {
    int[] table = new int[length];
    Arrays.fill(table, NONE);
    return table;
  }
}
