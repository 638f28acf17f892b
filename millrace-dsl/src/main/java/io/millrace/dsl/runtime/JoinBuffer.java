package io.millrace.dsl.runtime;

import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One side of a stream-stream join waiting for matches: its records in its store, and an index of
 * them by time on the heap.
 *
 * <pre>
 *   records (store): | key length (4) | record key (n) | time (8) |   -&gt; the records
 *   time index (heap): time -&gt; the record keys with records at that time
 * </pre>
 * Times are big-endian with the sign bit flipped, so the store's unsigned byte order is the order
 * of times, negative ones included. A record key's entries sort by key first, then time: a lookup
 * of one key's records within {@code [t - d, t + d]} reads that key's own entries only (the
 * key index below names them; with the time first it read every key's records in the window: about 1,500 a record
 * in Nexmark's q8). The length before the key keeps one key's entries apart from a longer key
 * that starts with it. The value lists the records of that key at that time, duplicates
 * included, each as {@code [matched: 1 byte][length: 4 bytes][value bytes]}; the flag says
 * whether the record has matched, for a left or outer join's records without a match when their
 * window closes. The empty key holds the join's progress (left store).
 *
 * <p><b>The time index</b> lists each (time, key) that holds records, so the closing of windows
 * reads only what it closes, in time order. It is an index of the store, never the only copy:
 * built from the store's records when the task starts (after a restore from the changelog too)
 * and changed with them. It was in the store ({@code FF FF FF FF <time><key>} to nothing), a
 * second entry to write, delete, send to the changelog and keep in the cache's sorted map of
 * unwritten entries per record: Nexmark q8's containers spent about 40% of their time in that
 * map. Its cost on the heap: about 100 bytes per (time, key) buffered. Index entries a store
 * still holds from then are deleted when the index is built.
 *
 * <p><b>The key index</b> (heap) lists each key's times that hold records, sorted, so a lookup
 * reads the key's records at those times with point reads, most of them answered by the store's
 * object cache, and a key with no records is answered without touching the store. It was a store
 * range per record: an iterator opened on RocksDB (its seek, and its disposal), the cache's
 * unwritten entries merged in; Nexmark q8's containers spent most of their RocksDB time there.
 * It is built and changed with the time index; its cost: about 60 bytes per key buffered and 8
 * per (time, key).
 *
 * <p>This layout replaced {@code <time><record key>} ({@link PaneKeys}): a join's stores written
 * before it cannot be read by it (docs/dsl.md).
 */
final class JoinBuffer {
  /** A buffered record. */
  record Entry(byte[] storeKey, byte[] recordKey, int index, long time, byte[] value,
      boolean matched) {}

  /** Where the store's time index began, before it moved to the heap: above every record entry. */
  private static final byte[] OLD_INDEX = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
  private static final int LENGTH = Integer.BYTES;
  private static final int TIME = Long.BYTES;

  private final KeyValueStore<byte[], byte[]> store;
  /** Time to the keys with records then: one {@code byte[]}, or a list of them. */
  private final TreeMap<Long, Object> byTime = new TreeMap<>();
  /** Each key's times with records, sorted (the key index); a key with none is absent. */
  private final HashMap<ByteBuffer, Times> byKey = new HashMap<>();

  /** A buffer over {@code store}, its time index built from the records it holds. */
  JoinBuffer(KeyValueStore<byte[], byte[]> store) {
    this.store = store;
    List<byte[]> oldIndex = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = store.all()) {
      while (it.hasNext()) {
        byte[] key = it.next().key();
        if (key.length == 0) {
          continue; // the progress
        }
        if (key.length >= OLD_INDEX.length
            && Arrays.equals(key, 0, OLD_INDEX.length, OLD_INDEX, 0, OLD_INDEX.length)) {
          oldIndex.add(key);
          continue;
        }
        int keyLength = ByteBuffer.wrap(key, 0, LENGTH).getInt();
        index(time(key, LENGTH + keyLength), Arrays.copyOfRange(key, LENGTH, LENGTH + keyLength),
            null);
      }
    }
    for (byte[] key : oldIndex) {
      store.delete(key);
    }
  }

  KeyValueStore<byte[], byte[]> store() {
    return store;
  }

  /** The records of {@code recordKey} from {@code from} to {@code to}, both included, in time order. */
  List<Entry> find(long from, long to, byte[] recordKey) {
    Times times = byKey.get(ByteBuffer.wrap(recordKey));
    if (times == null) {
      return List.of(); // no record of this key: no read of the store at all
    }
    List<Entry> found = new ArrayList<>();
    for (int i = times.indexOf(from); i < times.size && times.at[i] <= to; i++) {
      long t = times.at[i];
      byte[] key = entryKey(recordKey, t);
      byte[] value = store.get(key);
      if (value != null) {
        decode(key, recordKey, t, value, found);
      }
    }
    return found;
  }

  /** Buffers a record. */
  void add(long time, byte[] recordKey, byte[] value, boolean matched) {
    byte[] key = entryKey(recordKey, time);
    Times times = byKey.get(ByteBuffer.wrap(recordKey));
    // Most records are the first of their (time, key): the key index says so without a read.
    byte[] current = times != null && times.contains(time) ? store.get(key) : null;
    if (current == null) {
      index(time, recordKey, times); // the first record of (time, key)
      current = new byte[0];
    }
    byte[] next = Arrays.copyOf(current, current.length + 1 + Integer.BYTES + value.length);
    ByteBuffer.wrap(next, current.length, next.length - current.length)
        .put((byte) (matched ? 1 : 0)).putInt(value.length).put(value);
    store.put(key, next);
  }

  /** Marks these records (found by {@link #find}) as matched. */
  void markMatched(List<Entry> entries) {
    byte[] key = null;
    byte[] value = null;
    for (Entry e : entries) {
      if (e.matched()) {
        continue;
      }
      if (key != e.storeKey()) {
        if (key != null) {
          store.put(key, value);
        }
        key = e.storeKey();
        value = store.get(key);
      }
      value[offsetOf(value, e.index())] = 1;
    }
    if (key != null) {
      store.put(key, value);
    }
  }

  /**
   * Every record from {@code from} to before {@code time} (all from {@code from} for
   * {@link Long#MAX_VALUE}), in time order, then key order; left in the store
   * ({@link #removeBetween} takes them out).
   */
  List<Entry> between(long from, long time) {
    List<Entry> found = new ArrayList<>();
    for (Map.Entry<Long, Object> at : indexed(from, time).entrySet()) {
      long t = at.getKey();
      for (byte[] recordKey : keys(at.getValue(), true)) {
        byte[] key = entryKey(recordKey, t);
        byte[] value = store.get(key);
        if (value != null) {
          decode(key, recordKey, t, value, found);
        }
      }
    }
    return found;
  }

  /**
   * Removes every record from {@code from} to before {@code time} (all from {@code from} for
   * {@link Long#MAX_VALUE}).
   */
  void removeBetween(long from, long time) {
    if (from >= time && time != Long.MAX_VALUE) {
      return; // nothing between (and the empty view below takes no clear())
    }
    SortedMap<Long, Object> closed = indexed(from, time);
    for (Map.Entry<Long, Object> at : closed.entrySet()) {
      for (byte[] recordKey : keys(at.getValue(), false)) {
        store.delete(entryKey(recordKey, at.getKey()));
        ByteBuffer k = ByteBuffer.wrap(recordKey);
        Times times = byKey.get(k);
        if (times != null && times.remove(at.getKey())) {
          byKey.remove(k);
        }
      }
    }
    closed.clear();
  }

  /** The time index from {@code from} to before {@code time} (to its end for MAX_VALUE). */
  private SortedMap<Long, Object> indexed(long from, long time) {
    return time == Long.MAX_VALUE ? byTime.tailMap(from) : from >= time
        ? Collections.emptySortedMap() : byTime.subMap(from, time);
  }

  /**
   * Notes that {@code recordKey} has records at {@code time}; {@code times}: the key's entry in
   * the key index if the caller looked it up already (a record's path: one look-up, not two).
   */
  @SuppressWarnings("unchecked")
  private void index(long time, byte[] recordKey, Times times) {
    (times != null ? times
        : byKey.computeIfAbsent(ByteBuffer.wrap(recordKey), k -> new Times())).add(time);
    Object keys = byTime.putIfAbsent(time, recordKey);
    if (keys instanceof byte[] one) {
      List<byte[]> several = new ArrayList<>(2);
      several.add(one);
      several.add(recordKey);
      byTime.put(time, several);
    } else if (keys != null) {
      ((List<byte[]>) keys).add(recordKey);
    }
  }

  /** The keys of one time, in the store's key order if {@code sorted}. */
  @SuppressWarnings("unchecked")
  private static List<byte[]> keys(Object keys, boolean sorted) {
    if (keys instanceof byte[] one) {
      return List.of(one);
    }
    List<byte[]> several = (List<byte[]>) keys;
    if (sorted) {
      several.sort(Arrays::compareUnsigned); // as the store's index gave them
    }
    return several;
  }

  /** The key of {@code recordKey}'s records at {@code time}. */
  static byte[] entryKey(byte[] recordKey, long time) {
    byte[] key = new byte[LENGTH + recordKey.length + TIME];
    ByteBuffer.wrap(key).putInt(recordKey.length).put(recordKey).putLong(time ^ Long.MIN_VALUE);
    return key;
  }


  private static long time(byte[] key, int at) {
    return ByteBuffer.wrap(key, at, TIME).getLong() ^ Long.MIN_VALUE;
  }

  private static int offsetOf(byte[] value, int index) {
    int offset = 0;
    for (int i = 0; i < index; i++) {
      offset += 1 + Integer.BYTES + ByteBuffer.wrap(value, offset + 1, Integer.BYTES).getInt();
    }
    return offset;
  }

  private static void decode(byte[] key, byte[] recordKey, long time, byte[] value,
      List<Entry> into) {
    int offset = 0;
    int index = 0;
    while (offset < value.length) {
      boolean matched = value[offset] != 0;
      int length = ByteBuffer.wrap(value, offset + 1, Integer.BYTES).getInt();
      int start = offset + 1 + Integer.BYTES;
      into.add(new Entry(key, recordKey, index++, time,
          Arrays.copyOfRange(value, start, start + length), matched));
      offset = start + length;
    }
  }

  /**
   * One key's times with records, sorted, in a growable array: times mostly come in order and
   * leave from the front, so an add appends and a removal shifts a short array.
   */
  private static final class Times {
    long[] at = new long[2];
    int size;

    /** The index of the first time at or after {@code time}. */
    int indexOf(long time) {
      int i = Arrays.binarySearch(at, 0, size, time);
      return i >= 0 ? i : -i - 1;
    }

    boolean contains(long time) {
      return Arrays.binarySearch(at, 0, size, time) >= 0;
    }

    void add(long time) {
      int i = indexOf(time);
      if (i < size && at[i] == time) {
        return;
      }
      if (size == at.length) {
        at = Arrays.copyOf(at, size * 2);
      }
      System.arraycopy(at, i, at, i + 1, size - i);
      at[i] = time;
      size++;
    }

    /** Removes {@code time}; true if none is left. */
    boolean remove(long time) {
      int i = Arrays.binarySearch(at, 0, size, time);
      if (i >= 0) {
        System.arraycopy(at, i + 1, at, i, size - i - 1);
        size--;
      }
      return size == 0;
    }
  }
}
