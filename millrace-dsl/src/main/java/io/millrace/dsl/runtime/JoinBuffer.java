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
 * One side of a stream-stream join waiting for matches, in its store: keys are
 * {@code <time><record key bytes>} ({@link PaneKeys}, so a range of keys is a range of event
 * time), and a key's value lists the records of that key at that time, duplicates included, each
 * as {@code [matched: 1 byte][length: 4 bytes][value bytes]}. The flag says whether the record has
 * matched, for a left or outer join's records without a match when their window closes.
 */
final class JoinBuffer {
  /** A buffered record. */
  record Entry(byte[] storeKey, int index, long time, byte[] value, boolean matched) {}

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
    try (KeyValueIterator<byte[], byte[]> it = store.range(PaneKeys.start(from),
        to == Long.MAX_VALUE ? PaneKeys.start(Long.MAX_VALUE) : PaneKeys.start(to + 1))) {
      while (it.hasNext()) {
        KeyValue<byte[], byte[]> e = it.next();
        if (e.key().length - Long.BYTES == recordKey.length
            && Arrays.equals(e.key(), Long.BYTES, e.key().length, recordKey, 0, recordKey.length)) {
          decode(e.key(), e.value(), found);
        }
      }
    }
    return found;
  }

  /** Buffers a record. */
  void add(long time, byte[] recordKey, byte[] value, boolean matched) {
    byte[] key = PaneKeys.of(time, recordKey);
    byte[] current = store.get(key);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (current != null) {
      out.writeBytes(current);
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
   * {@link Long#MAX_VALUE}), left in the store ({@link #removeBefore} takes them out).
   */
  List<Entry> between(long from, long time) {
    List<Entry> found = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = time == Long.MAX_VALUE ? store.all()
        : store.range(PaneKeys.start(from), PaneKeys.start(time))) {
      while (it.hasNext()) {
        KeyValue<byte[], byte[]> e = it.next();
        if (PaneKeys.isPane(e.key()) && PaneKeys.paneStart(e.key()) >= from) {
          decode(e.key(), e.value(), found);
        }
      }
    }
    return found;
  }

  /** Removes every record before {@code time} (all for {@link Long#MAX_VALUE}). */
  void removeBefore(long time) {
    List<byte[]> keys = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = time == Long.MAX_VALUE ? store.all()
        : store.range(PaneKeys.start(Long.MIN_VALUE), PaneKeys.start(time))) {
      while (it.hasNext()) {
        byte[] key = it.next().key();
        if (PaneKeys.isPane(key)) {
          keys.add(key);
        }
      }
    }
    for (byte[] key : keys) {
      store.delete(key);
    }
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

  private static void decode(byte[] key, byte[] value, List<Entry> into) {
    long time = PaneKeys.paneStart(key);
    int offset = 0;
    int index = 0;
    while (offset < value.length) {
      boolean matched = value[offset] != 0;
      int length = ByteBuffer.wrap(value, offset + 1, Integer.BYTES).getInt();
      int start = offset + 1 + Integer.BYTES;
      into.add(new Entry(key, index++, time, Arrays.copyOfRange(value, start, start + length),
          matched));
      offset = start + length;
    }
  }
}
