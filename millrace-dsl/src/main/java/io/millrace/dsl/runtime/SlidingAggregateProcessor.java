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
import java.util.List;
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
 * <p><b>Progress.</b> Every window ending before {@link #emittedBelow} is out; it is kept in the
 * store under {@link SessionAggregateProcessor#PROGRESS}, so a restarted task neither emits a
 * window again nor takes a record for one. {@link #nextDue} keeps the earliest window end still to
 * come when known, so a watermark that closes no window costs no scan.
 */
final class SlidingAggregateProcessor extends WindowedAggregate {
  private static final byte[] PROGRESS = SessionAggregateProcessor.PROGRESS;
  private static final byte[] FIRST = {0, 0, 0, 0};
  private static final long UNKNOWN = Long.MIN_VALUE;
  private static final long NONE_DUE = Long.MAX_VALUE;

  /** Every window ending before this is out (restored), or UNKNOWN. */
  private long emittedBelow;
  /** The earliest window end not out yet, UNKNOWN (look), or NONE_DUE. */
  private long nextDue = UNKNOWN;

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
      byte[] slice = ByteBuffer.allocate(Integer.BYTES + recordKey.length + Long.BYTES)
          .putInt(recordKey.length).put(recordKey).putLong(timestamp).array();
      byte[] current = store.get(slice);
      Object next = aggregation.fold(key, value, current == null ? null
          : valueSerde.fromBytes(current));
      store.put(slice, valueSerde.toBytes(next));
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
   * Emits every window {@code wm} has closed, earliest end first. The progress is stored before
   * the results are passed on, and a result that fails on its way does not stop the others: the
   * first failure is thrown once every closed window is out.
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
      emittedBelow = limit; // nothing closes: no scan, nothing stored
      return;
    }
    List<Object[]> results = new ArrayList<>(); // key bytes, start, end, aggregate bytes list
    List<byte[]> gone = new ArrayList<>();
    long due = NONE_DUE;
    RuntimeException failure = null;
    try (KeyValueIterator<byte[], byte[]> it = store.range(FIRST, PROGRESS)) {
      List<KeyValue<byte[], byte[]>> group = new ArrayList<>();
      while (true) {
        KeyValue<byte[], byte[]> entry = it.hasNext() ? it.next() : null;
        if (entry != null && (group.isEmpty() || sameKey(group.get(0).key(), entry.key()))) {
          group.add(entry);
          continue;
        }
        if (!group.isEmpty()) {
          due = Math.min(due, closeKey(group, limit, results, gone));
          group.clear();
        }
        if (entry == null) {
          break;
        }
        group.add(entry);
      }
    }
    nextDue = due;
    for (byte[] key : gone) {
      store.delete(key);
    }
    if (wm == Long.MAX_VALUE && due == NONE_DUE) {
      store.delete(PROGRESS); // every input ended: nothing is left to guard
      emittedBelow = UNKNOWN;
    } else {
      emittedBelow = limit;
      store.put(PROGRESS, LongSerde.bytes(limit));
    }
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
        Forward.to(children, new Windowed<>(key, start, end), aggregate, end);
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * One key's windows that {@code limit} closes (and that were not out before) into
   * {@code results}, its slices no open window needs into {@code gone}; returns the earliest
   * window end of the key still to come.
   */
  private long closeKey(List<KeyValue<byte[], byte[]>> slices, long limit, List<Object[]> results,
      List<byte[]> gone) {
    long d = windows.sizeMs();
    TreeSet<Long> ends = new TreeSet<>();
    for (KeyValue<byte[], byte[]> slice : slices) {
      long t = time(slice.key());
      ends.add(t);
      ends.add(saturatedAdd(saturatedAdd(t, d), 1));
    }
    long due = NONE_DUE;
    byte[] recordKey = null;
    for (long end : ends) {
      if (end >= limit) {
        due = Math.min(due, end);
        continue;
      }
      if (emittedBelow != UNKNOWN && end < emittedBelow) {
        continue;
      }
      List<byte[]> held = new ArrayList<>();
      for (KeyValue<byte[], byte[]> slice : slices) {
        long t = time(slice.key());
        if (t >= end - d && t <= end) {
          held.add(slice.value());
        }
      }
      if (!held.isEmpty()) {
        if (recordKey == null) {
          byte[] first = slices.get(0).key();
          recordKey = Arrays.copyOfRange(first, Integer.BYTES, first.length - Long.BYTES);
        }
        results.add(new Object[] {recordKey, end - d, end, held});
      }
    }
    for (KeyValue<byte[], byte[]> slice : slices) {
      if (saturatedAdd(saturatedAdd(time(slice.key()), d), 1) < limit) {
        gone.add(slice.key()); // every window it is in, or makes, is out
      }
    }
    return due;
  }

  private static boolean sameKey(byte[] a, byte[] b) {
    return a.length == b.length
        && Arrays.equals(a, 0, a.length - Long.BYTES, b, 0, b.length - Long.BYTES);
  }

  private static long time(byte[] slice) {
    return ByteBuffer.wrap(slice, slice.length - Long.BYTES, Long.BYTES).getLong();
  }

}
