package io.millrace.dsl.runtime;

import static io.millrace.dsl.time.EventTimes.saturatedAdd;

import io.millrace.dsl.serde.LongSerde;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.dsl.time.WatermarkTracker;
import io.millrace.dsl.window.Windowed;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An aggregate per key and session (records at most the gap apart), kept in the operator's
 * store and emitted once per session when the watermark closes it.
 *
 * <p><b>Layout.</b> A session is one entry, {@code <key length><key bytes><start>} (big-endian,
 * never negative, so a key's sessions sort by start) to {@code <end><aggregate's bytes>}: a
 * record is stored once, folded into its session; a record within the gap of two sessions
 * merges them into one entry (their aggregates merged in time order, then the record folded in).
 * The end is in the value, not the key, because a record extends its session's end far more
 * often than its start: the extension then overwrites one entry (the store's cache keeps one
 * write of it per commit) instead of deleting one key and writing another each time. (Nexmark
 * q11's same-run A/B of the change was inside the machine's spread: docs/benchmarks.md.)
 * Which sessions a key has, and which end first, an index on the heap says ({@link
 * OpenSessions}: the sessions' times, not their aggregates), built from the store when the task
 * starts: a record reads its key's sessions with a get each, and a watermark takes only the
 * sessions it closes.
 *
 * <p><b>Closing.</b> A record more than the grace behind the watermark is late, so a session
 * whose end plus gap plus grace the watermark has passed can take no more records: it is
 * emitted ({@code Windowed(key, first record's time, last record's time)}, at its end) and
 * deleted.
 *
 * <p><b>Restarts.</b> The watermark of the last close is kept under {@link #PROGRESS}, written with
 * the closed sessions' deletion once their results are acknowledged; a restarted task takes a
 * record that was late then as late, so no session is emitted twice, and emits again what it
 * closed since. Its index is read from the store again (restored from the changelog, or the local
 * files).
 */
final class SessionAggregateProcessor extends WindowedAggregate {
  /** Sorts after every session (a key's length is never negative). */
  static final byte[] PROGRESS = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
  private static final byte[] FIRST = {0, 0, 0, 0};

  /** The watermark sessions were last closed at (restored), or NONE. */
  private long closedAt;
  /** The store's sessions, by key and by end. */
  private final OpenSessions open = new OpenSessions();

  SessionAggregateProcessor(Parts parts) {
    super(parts);
    byte[] progress = store.get(PROGRESS);
    this.closedAt = progress == null ? WatermarkTracker.NONE : LongSerde.value(progress);
    try (KeyValueIterator<byte[], byte[]> it = store.range(FIRST, PROGRESS)) {
      while (it.hasNext()) {
        var entry = it.next();
        byte[] key = entry.key();
        open.add(new OpenSessions.Session(Arrays.copyOf(key, key.length - Long.BYTES),
            start(key), end(entry.value())));
      }
    }
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
    byte[] prefix;
    List<OpenSessions.Session> joined = new ArrayList<>(2);
    List<OpenSessions.Session> sessions;
    int firstJoined = -1;
    try {
      prefix = KeyPrefix.of(keySerde.toBytes(key));
      sessions = open.of(prefix);
      Object merged = null;
      for (int i = 0; i < sessions.size(); i++) { // by start
        OpenSessions.Session session = sessions.get(i);
        if (session.start() > saturatedAdd(timestamp, gap)) {
          break; // no later session is within the gap
        }
        if (saturatedAdd(session.end(), gap) >= timestamp) {
          firstJoined = firstJoined < 0 ? i : firstJoined;
          byte[] bytes = store.get(sessionKey(prefix, session.start()));
          if (bytes == null) {
            throw new IllegalStateException("the session [" + session.start() + ", "
                + session.end() + "] of the key is in the operator's index but not in its store");
          }
          Object aggregate = valueSerde.fromBytes(aggregate(bytes));
          merged = merged == null ? aggregate : aggregation.merger().apply(merged, aggregate);
          joined.add(session);
          start = Math.min(start, session.start());
          end = Math.max(end, session.end());
        }
      }
      Object next = aggregation.fold(key, value, merged);
      for (OpenSessions.Session old : joined) {
        if (old.start() != start) { // (the one that starts the session is overwritten)
          store.delete(sessionKey(prefix, old.start()));
        }
      }
      store.put(sessionKey(prefix, start), sessionValue(end, valueSerde.toBytes(next)));
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    if (joined.size() == 1 && joined.get(0).start() == start) {
      open.extend(sessions, firstJoined, end); // most records: their key's session, later
      return;
    }
    for (OpenSessions.Session old : joined) {
      open.remove(old);
    }
    open.add(new OpenSessions.Session(prefix, start, end));
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
   * Emits every session {@code wm} has closed, earliest end first. The close (the sessions'
   * deletion, the progress) reaches the store once the results are acknowledged ({@link
   * HeldWrites}), and a result that fails on its way does not stop the others: the first failure
   * is thrown once every closed session is out.
   */
  @Override
  public void advanceTo(long wm) {
    if (wm == WatermarkTracker.NONE) {
      return;
    }
    List<OpenSessions.Session> closed = open.removeClosed(end -> closed(end, wm));
    if (closed.isEmpty()) {
      return;
    }
    List<byte[]> values = new ArrayList<>(closed.size()); // earliest end, then start, first
    List<byte[]> gone = new ArrayList<>(closed.size()); // the keys alone wait, not aggregates
    for (OpenSessions.Session s : closed) {
      byte[] key = sessionKey(s.prefix(), s.start());
      gone.add(key);
      values.add(store.get(key));
    }
    boolean done = wm == Long.MAX_VALUE && open.isEmpty(); // every input ended, all closed
    closedAt = done ? WatermarkTracker.NONE : wm;
    byte[] progress = done ? null : LongSerde.bytes(wm);
    held.after(gone.size(), () -> { // once the results are acknowledged
      gone.forEach(store::delete);
      if (progress == null) {
        store.delete(PROGRESS); // nothing is left to guard
      } else {
        store.put(PROGRESS, progress);
      }
    });
    RuntimeException failure = null;
    for (int i = 0; i < closed.size(); i++) {
      OpenSessions.Session session = closed.get(i);
      long start = session.start();
      long end = session.end();
      try {
        Object key;
        Object aggregate;
        try {
          key = keySerde.fromBytes(recordKey(session.prefix()));
          aggregate = valueSerde.fromBytes(aggregate(values.get(i)));
        } catch (RuntimeException e) {
          throw new OperatorException(node, "failed on the session [" + start + ", " + end
              + "] of a key", e);
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

  private static byte[] sessionKey(byte[] prefix, long start) {
    return ByteBuffer.allocate(prefix.length + Long.BYTES).put(prefix).putLong(start).array();
  }

  private static byte[] sessionValue(long end, byte[] aggregate) {
    return ByteBuffer.allocate(Long.BYTES + aggregate.length).putLong(end).put(aggregate).array();
  }

  private static long start(byte[] sessionKey) {
    return ByteBuffer.wrap(sessionKey, sessionKey.length - Long.BYTES, Long.BYTES).getLong();
  }

  private static long end(byte[] sessionValue) {
    return ByteBuffer.wrap(sessionValue, 0, Long.BYTES).getLong();
  }

  private static byte[] aggregate(byte[] sessionValue) {
    return Arrays.copyOfRange(sessionValue, Long.BYTES, sessionValue.length);
  }

  /** The record key's bytes of a session's prefix ({@code <key length><key bytes>}). */
  private static byte[] recordKey(byte[] prefix) {
    return Arrays.copyOfRange(prefix, Integer.BYTES, prefix.length);
  }

}
