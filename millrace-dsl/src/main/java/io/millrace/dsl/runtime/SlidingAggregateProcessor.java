package io.millrace.dsl.runtime;

import static io.millrace.dsl.time.EventTimes.saturatedAdd;

import io.millrace.dsl.serde.LongSerde;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.dsl.time.WatermarkTracker;
import io.millrace.dsl.window.Windowed;
import io.millrace.dsl.window.Windows;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * An aggregate per key and sliding window (Kafka Streams' sense, {@link Windows#sliding}), kept
 * as slices in the operator's store and emitted once per window when the watermark closes it.
 *
 * <p><b>Slices.</b> A key's records at one instant fold into one entry,
 * {@code <key length><key bytes><time>} (big-endian, never negative) to their aggregate: a record
 * is stored once, however many windows it falls in. The windows a key has are those its records
 * make, each {@code [end - d, end]}: one ending at each record's time, and one ending at
 * {@code t + 1 + d} after each record at {@code t} when it holds a record. When the watermark
 * passes a window's end plus the grace, no record on time can fall in it or make it (a record
 * more than the grace behind the watermark is late), so its slices are merged, in time order, and
 * its result passed on; a slice no open window needs is deleted.
 *
 * <p><b>The time index.</b> Beside each slice, {@code FF FF FF FE <time><key bytes>} (above every
 * slice: a key length is never negative; below the progress) to nothing, written with the slice's
 * first record and deleted with the slice. Windows ending in {@code [from, limit)} are those of the
 * keys with a slice at {@code t} in {@code [from, limit)} (the window ending at {@code t}) or in
 * {@code [from - d - 1, limit - d - 1)} (the one ending at {@code t + d + 1}), and the slices to
 * delete are in the second range: closing reads two short ranges of the index and each key's own
 * slices, what it closes and no more. (It read every slice in the store instead, live or deleted
 * but not compacted yet, whenever a window was due: with records all along, at nearly every
 * watermark.)
 *
 * <p><b>Progress.</b> Every window ending before {@link #emittedBelow} is out; it is kept in the
 * store under {@link SessionAggregateProcessor#PROGRESS}, so a restarted task neither emits a
 * window again nor takes a record for one. A close's progress and deletions reach the store once
 * its results are acknowledged ({@link HeldWrites}); a restart before that emits them again.
 * {@link #nextDue} keeps the earliest window end still to come when known, so a watermark that
 * closes no window costs no read.
 */
final class SlidingAggregateProcessor extends WindowedAggregate {
  private static final byte[] PROGRESS = SessionAggregateProcessor.PROGRESS;
  private static final byte[] INDEX = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe};
  private static final byte[] EMPTY = {};
  private static final long UNKNOWN = Long.MIN_VALUE;
  private static final long NONE_DUE = Long.MAX_VALUE;

  /** Every window ending before this is out (restored), or UNKNOWN. */
  private long emittedBelow;
  /** The earliest window end not out yet, UNKNOWN (look), or NONE_DUE. */
  private long nextDue = UNKNOWN;
  /**
   * Whether this task has closed windows since it started. Its first close deletes from the
   * index's beginning: a store restored from a changelog may hold slices a close before the
   * restart deleted after its progress reached the changelog.
   */
  private boolean closedOnce;

  SlidingAggregateProcessor(Parts parts) {
    super(parts);
    byte[] progress = store.get(PROGRESS);
    this.emittedBelow = progress == null ? UNKNOWN : LongSerde.value(progress);
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    EventTimeRecords.check(node, key, value, timestamp, "aggregate");
    long wm = watermark.getAsLong();
    if (emittedBelow != UNKNOWN && timestamp < emittedBelow
        || wm != WatermarkTracker.NONE && timestamp < limit(wm)) {
      lateRecord(key, value, timestamp);
      return;
    }
    try {
      byte[] recordKey = keySerde.toBytes(key);
      byte[] slice = sliceKey(recordKey, timestamp);
      byte[] current = store.get(slice);
      Object next = aggregation.fold(key, value, current == null ? null
          : valueSerde.fromBytes(current));
      store.put(slice, valueSerde.toBytes(next));
      if (current == null) {
        store.put(indexKey(timestamp, recordKey), EMPTY); // the slice's first record
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    if (nextDue != UNKNOWN) {
      nextDue = Math.min(nextDue, timestamp); // the window ending at it comes first
    }
  }

  /** Windows ending before this have closed at watermark {@code wm}. */
  private long limit(long wm) {
    return wm == Long.MAX_VALUE ? Long.MAX_VALUE : saturatedAdd(wm, -windows.graceMs());
  }

  /**
   * Emits every window {@code wm} has closed, earliest end first. The slices no open window
   * holds are deleted and the progress stored once the results are acknowledged ({@link
   * HeldWrites}), and a result that fails on its way does not stop the others: the first
   * failure is thrown once every closed window is out.
   */
  @Override
  public void advanceTo(long wm) {
    if (wm == WatermarkTracker.NONE) {
      return;
    }
    long limit = limit(wm);
    if (emittedBelow != UNKNOWN && limit <= emittedBelow) {
      return;
    }
    if (nextDue != UNKNOWN && nextDue >= limit) {
      emittedBelow = limit; // nothing closes (nor is deleted): no read, nothing stored
      return;
    }
    long d = windows.sizeMs();
    long from = emittedBelow == UNKNOWN ? 0 : emittedBelow; // windows ending from here close
    long goneBelow = saturatedAdd(limit, -d - 1); // a slice before it is in no open window
    long makersFrom = closedOnce ? Math.max(0, saturatedAdd(from, -d - 1)) : 0;
    Map<ByteBuffer, byte[]> keys = new LinkedHashMap<>(); // by content: the keys that close
    List<byte[]> gone = new ArrayList<>();
    if (goneBelow >= from) { // the two ranges meet: one read
      readIndex(makersFrom, limit, goneBelow, keys, gone);
    } else {
      readIndex(makersFrom, goneBelow, goneBelow, keys, gone);
      readIndex(from, limit, goneBelow, keys, gone);
    }
    closedOnce = true;
    List<Object[]> results = new ArrayList<>(); // key bytes, start, end, aggregate bytes list
    for (byte[] recordKey : keys.values()) {
      closeKey(recordKey, makersFrom, from, limit, results);
    }
    long due = nextDue(limit, goneBelow, d); // (the index read before the deletions are made)
    nextDue = due;
    if (wm == Long.MAX_VALUE && due == NONE_DUE) {
      emittedBelow = UNKNOWN;
      held.after(gone.size(), () -> { // every input ended: once the results are acknowledged
        gone.forEach(store::delete);
        store.delete(PROGRESS); // nothing is left to guard
      });
    } else {
      emittedBelow = limit;
      byte[] progress = LongSerde.bytes(limit);
      held.after(gone.size(), () -> { // once the results are acknowledged
        gone.forEach(store::delete);
        store.put(PROGRESS, progress);
      });
    }
    emit(results);
  }

  /**
   * Reads the index from {@code lo} to before {@code hi} (to its end for {@link Long#MAX_VALUE}):
   * each key once into {@code keys}, and the slices before {@code goneBelow}, with their index
   * entries, into {@code gone}.
   */
  private void readIndex(long lo, long hi, long goneBelow, Map<ByteBuffer, byte[]> keys,
      List<byte[]> gone) {
    long from = Math.max(lo, 0); // (times are never negative: a negative one sorts above them)
    if (from >= hi) {
      return;
    }
    try (KeyValueIterator<byte[], byte[]> it = index(from, hi)) {
      while (it.hasNext()) {
        byte[] index = it.next().key();
        long t = indexTime(index);
        byte[] recordKey = Arrays.copyOfRange(index, INDEX.length + Long.BYTES, index.length);
        keys.putIfAbsent(ByteBuffer.wrap(recordKey), recordKey);
        if (t < goneBelow) {
          gone.add(index);
          gone.add(sliceKey(recordKey, t));
        }
      }
    }
  }

  /**
   * One key's windows ending in {@code [from, limit)} into {@code results}, from its slices at
   * {@code lo} and after (every slice such a window holds or is made by).
   */
  private void closeKey(byte[] recordKey, long lo, long from, long limit,
      List<Object[]> results) {
    long d = windows.sizeMs();
    List<KeyValue<byte[], byte[]>> slices = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = store.range(sliceKey(recordKey, lo),
        limit == Long.MAX_VALUE ? KeyPrefix.after(recordKey) : sliceKey(recordKey, limit))) {
      while (it.hasNext()) {
        slices.add(it.next());
      }
    }
    TreeSet<Long> ends = new TreeSet<>();
    for (KeyValue<byte[], byte[]> slice : slices) {
      long t = time(slice.key());
      ends.add(t);
      ends.add(saturatedAdd(saturatedAdd(t, d), 1));
    }
    for (long end : ends.subSet(from, limit)) {
      List<byte[]> held = new ArrayList<>();
      for (KeyValue<byte[], byte[]> slice : slices) {
        long t = time(slice.key());
        if (t >= end - d && t <= end) {
          held.add(slice.value());
        }
      }
      if (!held.isEmpty()) {
        results.add(new Object[] {recordKey, end - d, end, held});
      }
    }
  }

  /**
   * The earliest window end at {@code limit} or after, once every slice before
   * {@code goneBelow} is gone: {@code t + d + 1} for the first slice in
   * {@code [goneBelow, limit)}, or the first slice's time at {@code limit} or after, if earlier.
   */
  private long nextDue(long limit, long goneBelow, long d) {
    long due = NONE_DUE;
    long made = firstIndexTime(goneBelow, limit);
    if (made != NONE_DUE) {
      due = saturatedAdd(saturatedAdd(made, d), 1);
    }
    long at = firstIndexTime(limit, due);
    return Math.min(due, at);
  }

  /**
   * The first time in the index from {@code lo} to before {@code hi}, or NONE_DUE. It looks in
   * ranges 1, 4, 16, ... ms wide, so that it copies no more of the cache than it must: an
   * iterator takes the cache's unwritten entries of its whole range when it opens, and with
   * records all along, the first ms holds one (one range of all it might have to read copied
   * thousands of entries a close).
   */
  private long firstIndexTime(long lo, long hi) {
    long from = Math.max(lo, 0);
    // Widths grow without bound (at most ~32 probes to the end of time: an index with nothing
    // after the limit, as when a quiet input's last windows close on the wall clock).
    for (long width = 1; from < hi; width = width > Long.MAX_VALUE / 4 ? Long.MAX_VALUE
        : width * 4) {
      long to = hi - from <= width ? hi : from + width;
      try (KeyValueIterator<byte[], byte[]> it = index(from, to)) {
        if (it.hasNext()) {
          return indexTime(it.next().key());
        }
      }
      from = to;
    }
    return NONE_DUE;
  }

  /** The index's entries from {@code from} to before {@code to} (to its end for MAX_VALUE). */
  private KeyValueIterator<byte[], byte[]> index(long from, long to) {
    return store.range(indexKey(from, EMPTY),
        to == Long.MAX_VALUE ? PROGRESS : indexKey(to, EMPTY));
  }

  /**
   * Passes each closed window's result on, earliest end first. A result that fails on its way
   * does not stop the others: the first failure is thrown once every one is out.
   */
  private void emit(List<Object[]> results) {
    RuntimeException failure = null;
    results.sort(Comparator.comparingLong(r -> (Long) r[2]));
    for (Object[] result : results) {
      long start = (Long) result[1];
      long end = (Long) result[2];
      try {
        Object key;
        Object aggregate = null;
        try {
          key = keySerde.fromBytes((byte[]) result[0]);
          for (Object bytes : (List<?>) result[3]) {
            Object slice = valueSerde.fromBytes((byte[]) bytes);
            aggregate = aggregate == null ? slice : aggregation.merger().apply(aggregate, slice);
          }
        } catch (RuntimeException e) {
          throw new OperatorException(node, "failed on the sliding window [" + start + ", "
              + end + "] of a key", e);
        }
        Windowed<Object> window = new Windowed<>(key, start, end); // one for every child
        for (Processor child : children) { // (its own call: see PipelineRuntime#process)
          child.process(window, aggregate, end);
        }
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static byte[] sliceKey(byte[] recordKey, long time) {
    return ByteBuffer.allocate(Integer.BYTES + recordKey.length + Long.BYTES)
        .putInt(recordKey.length).put(recordKey).putLong(time).array();
  }


  private static byte[] indexKey(long time, byte[] recordKey) {
    return ByteBuffer.allocate(INDEX.length + Long.BYTES + recordKey.length)
        .put(INDEX).putLong(time).put(recordKey).array();
  }

  private static long indexTime(byte[] index) {
    return ByteBuffer.wrap(index, INDEX.length, Long.BYTES).getLong();
  }

  private static long time(byte[] slice) {
    return ByteBuffer.wrap(slice, slice.length - Long.BYTES, Long.BYTES).getLong();
  }
}
