package io.millrace.dsl.runtime;

import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One side of a stream-stream join waiting for matches, in its store, under two kinds of keys:
 *
 * <pre>
 *   records:    | key length (4) | record key (n) | time (8) |   -&gt; the records
 *   time index: | FF FF FF FF    | time (8)       | record key (n) |   -&gt; empty
 * </pre>
 * Times are big-endian with the sign bit flipped, so the store's unsigned byte order is the order
 * of times, negative ones included. A record key's entries sort by key first, then time: a lookup
 * of one key's records within {@code [t - d, t + d]} is one short range over that key's own
 * entries (with the time first it read every key's records in the window: about 1,500 a record
 * in Nexmark's q8). The length before the key keeps one key's entries apart from a longer key
 * that starts with it. The time index (a key length is never negative, so {@code FF FF FF FF}
 * sorts after every record entry) lists each (time, key) that holds records, so the closing of
 * windows reads only what it closes, in time order; it is written when a (time, key) gets its
 * first record and deleted with it. The value lists the records of that key at that time,
 * duplicates included, each as {@code [matched: 1 byte][length: 4 bytes][value bytes]}; the flag
 * says whether the record has matched, for a left or outer join's records without a match when
 * their window closes. The empty key holds the join's progress (left store).
 *
 * <p>This layout replaced {@code <time><record key>} ({@link PaneKeys}): a join's stores written
 * before it cannot be read by it (docs/dsl.md).
 */
final class JoinBuffer {
  /** A buffered record. */
  record Entry(byte[] storeKey, byte[] recordKey, int index, long time, byte[] value,
      boolean matched) {}

  /** Where the time index begins: above every record entry. */
  private static final byte[] INDEX = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
  private static final int LENGTH = Integer.BYTES;
  private static final int TIME = Long.BYTES;

  private final KeyValueStore<byte[], byte[]> store;

  JoinBuffer(KeyValueStore<byte[], byte[]> store) {
    this.store = store;
  }

  KeyValueStore<byte[], byte[]> store() {
    return store;
  }

  /** The records of {@code recordKey} from {@code from} to {@code to}, both included, in time order. */
  List<Entry> find(long from, long to, byte[] recordKey) {
    List<Entry> found = new ArrayList<>();
    byte[] end = to == Long.MAX_VALUE ? afterKey(recordKey) : entryKey(recordKey, to + 1);
    try (KeyValueIterator<byte[], byte[]> it = store.range(entryKey(recordKey, from), end)) {
      while (it.hasNext()) {
        KeyValue<byte[], byte[]> e = it.next();
        decode(e.key(), recordKey, time(e.key(), e.key().length - TIME), e.value(), found);
      }
    }
    return found;
  }

  /** Buffers a record. */
  void add(long time, byte[] recordKey, byte[] value, boolean matched) {
    byte[] key = entryKey(recordKey, time);
    byte[] current = store.get(key);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (current != null) {
      out.writeBytes(current);
    } else {
      store.put(indexKey(time, recordKey), new byte[0]); // the first record of (time, key)
    }
    write(out, matched, value);
    store.put(key, out.toByteArray());
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
    for (byte[] index : index(from, time)) {
      long t = time(index, INDEX.length);
      byte[] recordKey = Arrays.copyOfRange(index, INDEX.length + TIME, index.length);
      byte[] key = entryKey(recordKey, t);
      byte[] value = store.get(key);
      if (value != null) {
        decode(key, recordKey, t, value, found);
      }
    }
    return found;
  }

  /**
   * Removes every record from {@code from} to before {@code time} (all from {@code from} for
   * {@link Long#MAX_VALUE}); the caller knows there is none before {@code from}.
   */
  void removeBetween(long from, long time) {
    for (byte[] index : index(from, time)) {
      byte[] recordKey = Arrays.copyOfRange(index, INDEX.length + TIME, index.length);
      store.delete(entryKey(recordKey, time(index, INDEX.length)));
      store.delete(index);
    }
  }

  /**
   * The time index's keys from {@code from} to before {@code time} (to the end for
   * {@link Long#MAX_VALUE}), in order.
   */
  private List<byte[]> index(long from, long time) {
    List<byte[]> keys = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = time == Long.MAX_VALUE ? store.prefix(INDEX)
        : store.range(indexKey(from, new byte[0]), indexKey(time, new byte[0]))) {
      while (it.hasNext()) {
        byte[] key = it.next().key();
        if (time(key, INDEX.length) >= from) { // (a prefix starts at the index's beginning)
          keys.add(key);
        }
      }
    }
    return keys;
  }

  /** The key of {@code recordKey}'s records at {@code time}. */
  static byte[] entryKey(byte[] recordKey, long time) {
    byte[] key = new byte[LENGTH + recordKey.length + TIME];
    ByteBuffer.wrap(key).putInt(recordKey.length).put(recordKey).putLong(time ^ Long.MIN_VALUE);
    return key;
  }

  /** Past every entry of {@code recordKey}: its prefix, incremented (a length's first byte is below 0x80). */
  private static byte[] afterKey(byte[] recordKey) {
    byte[] prefix = ByteBuffer.allocate(LENGTH + recordKey.length).putInt(recordKey.length)
        .put(recordKey).array();
    for (int i = prefix.length - 1; ; i--) {
      if (prefix[i] != (byte) 0xff) {
        prefix[i]++;
        return Arrays.copyOf(prefix, i + 1);
      }
    }
  }

  /** The time index's key of {@code recordKey}'s records at {@code time}. */
  static byte[] indexKey(long time, byte[] recordKey) {
    byte[] key = new byte[INDEX.length + TIME + recordKey.length];
    ByteBuffer.wrap(key).put(INDEX).putLong(time ^ Long.MIN_VALUE).put(recordKey);
    return key;
  }

  private static long time(byte[] key, int at) {
    return ByteBuffer.wrap(key, at, TIME).getLong() ^ Long.MIN_VALUE;
  }

  private static void write(ByteArrayOutputStream out, boolean matched, byte[] value) {
    out.write(matched ? 1 : 0);
    out.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(value.length).array());
    out.writeBytes(value);
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
}
