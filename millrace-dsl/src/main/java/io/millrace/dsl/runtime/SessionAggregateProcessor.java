package io.millrace.dsl.runtime;

import static io.millrace.dsl.time.EventTimes.saturatedAdd;

import io.millrace.dsl.serde.LongSerde;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.dsl.time.WatermarkTracker;
import io.millrace.dsl.window.Windowed;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * An aggregate per key and session (records at most the gap apart), kept in the operator's
 * store and emitted once per session when the watermark closes it.
 *
 * <p><b>Layout.</b> A session is one entry, {@code <key length><key bytes><start><end>} (times
 * big-endian, never negative, so a key's sessions sort by start) to its aggregate's bytes: a
 * record is stored once, folded into its session; a record within the gap of two sessions
 * merges them into one entry (their aggregates merged in time order, then the record folded in).
 * A key's sessions are found by a range over its prefix; nothing waits on the heap.
 *
 * <p><b>Closing.</b> A record more than the grace behind the watermark is late, so a session
 * whose end plus gap plus grace the watermark has passed can take no more records: it is
 * emitted ({@code Windowed(key, first record's time, last record's time)}, at its end) and
 * deleted. {@link #minEnd} keeps the earliest end in the store when known, so a watermark that
 * closes nothing costs no scan.
 *
 * <p><b>Restarts.</b> The watermark of the last close is kept under {@link #PROGRESS}; a restarted
 * task takes a record that was late then as late, so no session is emitted twice.
 */
final class SessionAggregateProcessor extends WindowedAggregate {
  /** Sorts after every session (a key's length is never negative). */
  static final byte[] PROGRESS = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
  private static final byte[] FIRST = {0, 0, 0, 0};
  private static final long UNKNOWN = Long.MIN_VALUE;
  private static final long EMPTY = Long.MAX_VALUE;

  /** The watermark sessions were last closed at (restored), or NONE. */
  private long closedAt;
  /** The earliest session end in the store, UNKNOWN (look), or EMPTY. */
  private long minEnd = UNKNOWN;

  SessionAggregateProcessor(Parts parts) {
    super(parts);
    byte[] progress = store.get(PROGRESS);
    this.closedAt = progress == null ? WatermarkTracker.NONE : LongSerde.value(progress);
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    EventTimeRecords.check(node, key, value, timestamp, "aggregate");
    if (behind(timestamp, watermark.getAsLong()) || behind(timestamp, closedAt)) {
      lateRecord(key, value, timestamp);
      return;
    }
    long gap = windows.gapMs();
    long start = timestamp;
    long end = timestamp;
    try {
      byte[] prefix = prefix(keySerde.toBytes(key));
      Object merged = null;
      List<byte[]> joined = new ArrayList<>();
      try (KeyValueIterator<byte[], byte[]> it = store.range(prefix, after(prefix))) {
        while (it.hasNext()) {
          KeyValue<byte[], byte[]> session = it.next();
          long s = start(session.key());
          long e = end(session.key());
          if (s > saturatedAdd(timestamp, gap)) {
            break; // sorted by start: no later session is within the gap
          }
          if (saturatedAdd(e, gap) >= timestamp) {
            Object aggregate = valueSerde.fromBytes(session.value());
            merged = merged == null ? aggregate : aggregation.merger().apply(merged, aggregate);
            joined.add(session.key());
            start = Math.min(start, s);
            end = Math.max(end, e);
          }
        }
      }
      Object next = aggregation.fold(key, value, merged);
      for (byte[] old : joined) {
        store.delete(old);
      }
      store.put(sessionKey(prefix, start, end), valueSerde.toBytes(next));
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    if (minEnd != UNKNOWN) {
      minEnd = Math.min(minEnd, end);
    }
  }

  /** Whether a record at {@code time} is more than the grace behind {@code wm}. */
  private boolean behind(long time, long wm) {
    return wm != WatermarkTracker.NONE && saturatedAdd(time, windows.graceMs()) < wm;
  }

  /** Whether a session ending at {@code end} can take no record on time at {@code wm}. */
  private boolean closed(long end, long wm) {
    return saturatedAdd(saturatedAdd(end, windows.gapMs()), windows.graceMs()) < wm;
  }

  /**
   * Emits every session {@code wm} has closed, earliest end first. The close is stored before
   * the results are passed on, and a result that fails on its way does not stop the others: the
   * first failure is thrown once every closed session is out.
   */
  @Override
  public void advanceTo(long wm) {
    if (wm == WatermarkTracker.NONE || minEnd == EMPTY
        || minEnd != UNKNOWN && !closed(minEnd, wm)) {
      return;
    }
    List<Object[]> closing = new ArrayList<>();
    long earliestLeft = EMPTY;
    try (KeyValueIterator<byte[], byte[]> it = store.range(FIRST, PROGRESS)) {
      while (it.hasNext()) {
        KeyValue<byte[], byte[]> session = it.next();
        long end = end(session.key());
        if (closed(end, wm)) {
          closing.add(new Object[] {session.key(), session.value()});
        } else {
          earliestLeft = Math.min(earliestLeft, end);
        }
      }
    }
    minEnd = earliestLeft;
    if (closing.isEmpty()) {
      return;
    }
    for (Object[] session : closing) {
      store.delete((byte[]) session[0]);
    }
    if (wm == Long.MAX_VALUE && minEnd == EMPTY) {
      store.delete(PROGRESS); // every input ended: nothing is left to guard
      closedAt = WatermarkTracker.NONE;
    } else {
      closedAt = wm;
      store.put(PROGRESS, LongSerde.bytes(wm));
    }
    closing.sort(Comparator.<Object[]>comparingLong(s -> end((byte[]) s[0]))
        .thenComparingLong(s -> start((byte[]) s[0])));
    RuntimeException failure = null;
    for (Object[] session : closing) {
      byte[] sessionKey = (byte[]) session[0];
      long start = start(sessionKey);
      long end = end(sessionKey);
      try {
        Object key;
        Object aggregate;
        try {
          key = keySerde.fromBytes(recordKey(sessionKey));
          aggregate = valueSerde.fromBytes((byte[]) session[1]);
        } catch (RuntimeException e) {
          throw new OperatorException(node, "failed on the session [" + start + ", " + end
              + "] of a key", e);
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

  private static byte[] prefix(byte[] recordKey) {
    return ByteBuffer.allocate(Integer.BYTES + recordKey.length).putInt(recordKey.length)
        .put(recordKey).array();
  }

  /** Past every session of the prefix's key: their next byte (a start's first) is below 0x80. */
  private static byte[] after(byte[] prefix) {
    byte[] after = Arrays.copyOf(prefix, prefix.length + 1);
    after[prefix.length] = (byte) 0xff;
    return after;
  }

  private static byte[] sessionKey(byte[] prefix, long start, long end) {
    return ByteBuffer.allocate(prefix.length + 2 * Long.BYTES).put(prefix).putLong(start)
        .putLong(end).array();
  }

  private static long start(byte[] sessionKey) {
    return ByteBuffer.wrap(sessionKey, sessionKey.length - 2 * Long.BYTES, Long.BYTES).getLong();
  }

  private static long end(byte[] sessionKey) {
    return ByteBuffer.wrap(sessionKey, sessionKey.length - Long.BYTES, Long.BYTES).getLong();
  }

  private static byte[] recordKey(byte[] sessionKey) {
    return Arrays.copyOfRange(sessionKey, Integer.BYTES, sessionKey.length - 2 * Long.BYTES);
  }

}
