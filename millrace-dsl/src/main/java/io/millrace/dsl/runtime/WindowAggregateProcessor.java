package io.millrace.dsl.runtime;

import static io.millrace.dsl.time.EventTimes.saturatedAdd;

import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.time.WatermarkTracker;
import io.millrace.dsl.window.Windowed;
import io.millrace.dsl.window.Windows;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An aggregate per key and window, kept as panes in the operator's store and emitted once per
 * window when the watermark closes it.
 *
 * <p><b>Panes.</b> Windows are cut into panes (slices of {@link Windows#paneMs}); a record folds
 * into its own pane's aggregate only, one store write whatever the number of windows it falls
 * in. When a window closes, its panes' aggregates are merged per key, in time order, and the
 * window's result is passed on; the panes that no later window holds are deleted. Results wait in
 * the store (RocksDB, with its changelog), never on the heap: the heap holds only the one window
 * being emitted.
 *
 * <p><b>Progress.</b> The start of the earliest window not yet emitted is kept in the store
 * (under {@link PaneKeys#PROGRESS}), so a restarted task neither emits a closed window again
 * from the panes it left nor takes records for it. A close's deletions and progress are written
 * once its results are acknowledged ({@link HeldWrites}: under at-least-once, after the next
 * commit), so the changelog never says a window closed whose result a crash could still lose; a
 * restart before that emits the window again. Once every input has ended and every window is
 * emitted, the store is left empty.
 *
 * <p><b>Cost.</b> A record costs a read and a write of its pane; the store is scanned only when
 * a window may close ({@link #minPane} keeps the earliest pane in the store, when known, so a
 * watermark that moves inside an open window costs nothing).
 */
final class WindowAggregateProcessor extends WindowedAggregate {
  private static final long UNKNOWN = Long.MIN_VALUE;
  private static final long EMPTY = Long.MAX_VALUE;

  /** The start of the earliest window not emitted yet, or UNKNOWN before the first. */
  private long nextStart;
  /** The earliest pane start in the store, UNKNOWN (look), or EMPTY. */
  private long minPane = UNKNOWN;
  /**
   * The store holds no pane before this (they were deleted up to it), or UNKNOWN (as after a
   * restart). Deleting a closed window's panes starts here: from the beginning of time it walked
   * every pane deleted since the last flush (the cache keeps them, dirty) and since RocksDB last
   * compacted (its tombstones), per window closed: a sixth of a windowed count's time.
   */
  private long deletedBefore = UNKNOWN;
  /** {@link Windows#paneMs}, a greatest common divisor: worked out once, not per record. */
  private final long paneMs;
  /**
   * A count stored with the DSL's long serde: folded as a long, where the general fold boxes
   * the count read and the count written (two allocations a record, a sixth of a windowed
   * count's time against a hand-written one: bench dsl).
   */
  private final boolean countsLongs;

  WindowAggregateProcessor(Parts parts) {
    super(parts);
    this.paneMs = windows.paneMs();
    this.countsLongs = aggregation.kind() == Aggregation.Kind.COUNT
        && ((Object) valueSerde) instanceof LongSerde;
    byte[] progress = store.get(PaneKeys.PROGRESS);
    this.nextStart = progress == null ? UNKNOWN : LongSerde.value(progress);
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    EventTimeRecords.check(node, key, value, timestamp, "aggregate");
    long pane = Math.floorDiv(timestamp, paneMs) * paneMs;
    if (isLate(timestamp, pane)) {
      lateRecord(key, value, timestamp);
      return;
    }
    try {
      byte[] paneKey = PaneKeys.of(pane, keySerde.toBytes(key));
      byte[] current = store.get(paneKey);
      if (countsLongs) {
        store.put(paneKey, LongSerde.bytes(current == null ? 1 : LongSerde.value(current) + 1));
      } else {
        Object next = aggregation.fold(key, value, current == null ? null
            : valueSerde.fromBytes(current));
        store.put(paneKey, valueSerde.toBytes(next));
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    if (minPane != UNKNOWN) {
      minPane = Math.min(minPane, pane);
    }
  }

  /** Every window the record falls in has closed (or was emitted before a restart). */
  private boolean isLate(long timestamp, long pane) {
    // Tumbling windows are their panes: no second division per record.
    long lastStart = paneMs == windows.advanceMs() ? pane : windows.lastStartHolding(timestamp);
    if (nextStart != UNKNOWN && lastStart < nextStart) {
      return true;
    }
    long wm = watermark.getAsLong();
    return wm != WatermarkTracker.NONE && closesBy(lastStart, wm);
  }

  /** Whether the window starting at {@code start} has closed at watermark {@code wm}. */
  private boolean closesBy(long start, long wm) {
    return saturatedAdd(saturatedAdd(start, windows.sizeMs()), windows.graceMs()) <= wm;
  }

  /**
   * Emits every window the watermark {@code wm} has closed, earliest first. Windows it closed
   * without a record are passed over for good (a record for them now is late), so a window's
   * result never changes after its close.
   *
   * <p>A result that fails on its way (a later operator throws) does not stop the others: the
   * first failure is thrown once every closed window is out, so the task's error policy applies
   * and no key of a window comes out twice from this task. A window's panes are deleted and its
   * progress stored only once its results are out (and acknowledged), and not at all after a
   * failure in the same
   * call: under {@code task.error.policy=fail} the task stops with the failed window still in
   * its store, and a restarted task emits it again (at least once); under {@code skip} the next
   * window closed clears it, or, at the end of the input, the end's own cleanup.
   */
  @Override
  public void advanceTo(long wm) {
    RuntimeException failure = null;
    while (true) {
      if (nextStart != UNKNOWN && !closesBy(nextStart, wm)) {
        break; // no window can close yet: the store is not looked at
      }
      if (minPane == UNKNOWN) {
        minPane = firstPane();
      }
      long start = minPane == EMPTY ? Long.MAX_VALUE : windows.firstStartHolding(minPane);
      if (nextStart != UNKNOWN) {
        start = Math.max(start, nextStart);
      }
      if (minPane == EMPTY || !closesBy(start, wm)) {
        if (failure == null) {
          passOverClosed(wm);
        }
        if (minPane == EMPTY && wm == Long.MAX_VALUE && nextStart != UNKNOWN) {
          // Every input ended and every window was emitted: nothing is left to guard, and a job
          // that reads its inputs again from the start (offset.reset) counts them afresh.
          // (Held as the closes before it are: it comes after them, and may come through a
          // repartition's end markers before this task's own end.) Held even after a failed
          // close in this call: no later close would clear its panes, and under the fail policy
          // the task stops before any commit applies what is held.
          nextStart = UNKNOWN;
          held.after(() -> {
            deletePanesBefore(Long.MAX_VALUE); // any kept after a failure the task went on from
            store.delete(PaneKeys.PROGRESS);
            deletedBefore = UNKNOWN;
          });
        }
        break;
      }
      List<Object[]> results = new ArrayList<>();
      long closedBefore = start + windows.advanceMs();
      List<byte[]> leaving = new ArrayList<>();
      RuntimeException failed = results(start, closedBefore, results, leaving);
      failure = failure == null ? failed : failure;
      nextStart = closedBefore;
      minPane = UNKNOWN;
      long end = start + windows.sizeMs();
      for (Object[] result : results) {
        try {
          Windowed<Object> window = new Windowed<>(result[0], start, end);
          for (Processor child : children) { // (its own call: see PipelineRuntime#process)
            child.process(window, result[1], end - 1);
          }
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure == null) {
        // Once acknowledged: the panes it read, or a range if they may not be all there are.
        long closed = start;
        held.after(leaving.size(), () -> deletePanes(closed, leaving, closedBefore));
        saveProgress();
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Stores the progress once what was emitted before it is acknowledged ({@link HeldWrites}). */
  private void saveProgress() {
    byte[] progress = LongSerde.bytes(nextStart);
    held.after(() -> store.put(PaneKeys.PROGRESS, progress));
  }

  /** Moves past the windows {@code wm} closed that hold no record. */
  private void passOverClosed(long wm) {
    if (wm == Long.MAX_VALUE || wm == WatermarkTracker.NONE) {
      return;
    }
    long firstOpen = Math.floorDiv(saturatedAdd(wm, -saturatedAdd(windows.sizeMs(), windows.graceMs())),
        windows.advanceMs()) * windows.advanceMs() + windows.advanceMs();
    if (nextStart == UNKNOWN || firstOpen > nextStart) {
      nextStart = firstOpen;
      saveProgress(); // a restarted task must not take records for them either
    }
  }

  /** The earliest pane a window not emitted yet holds (one kept after a failure is not). */
  private long firstPane() {
    long from = nextStart == UNKNOWN ? Long.MIN_VALUE : nextStart;
    try (KeyValueIterator<byte[], byte[]> it = store.range(PaneKeys.start(from),
        PaneKeys.start(Long.MAX_VALUE))) {
      return it.hasNext() ? PaneKeys.paneStart(it.next().key()) : EMPTY;
    }
  }

  /**
   * The results of the window starting at {@code start}, per key ({@code [key, aggregate]}),
   * into {@code results}, and the keys of its panes that start before {@code closedBefore} (no
   * later window holds them) into {@code leaving}; a key whose panes cannot be read or merged is
   * left out of the results, and the first such failure returned.
   */
  private RuntimeException results(long start, long closedBefore, List<Object[]> results,
      List<byte[]> leaving) {
    long end = start + windows.sizeMs();
    Map<ByteBuffer, Object[]> byKey = new LinkedHashMap<>(); // the one window on the heap
    RuntimeException failure = null;
    try (KeyValueIterator<byte[], byte[]> it = store.range(PaneKeys.start(start),
        PaneKeys.start(end))) {
      while (it.hasNext()) {
        KeyValue<byte[], byte[]> entry = it.next();
        if (PaneKeys.paneStart(entry.key()) < closedBefore) {
          leaving.add(entry.key());
        }
        byte[] recordKey = PaneKeys.recordKey(entry.key());
        Object[] slot = byKey.get(ByteBuffer.wrap(recordKey));
        if (slot != null && slot[1] == null) {
          continue; // failed already
        }
        try {
          Object aggregate = valueSerde.fromBytes(entry.value());
          if (slot == null) {
            byKey.put(ByteBuffer.wrap(recordKey), new Object[] {recordKey, aggregate});
          } else {
            slot[1] = aggregation.merger().apply(slot[1], aggregate);
          }
        } catch (RuntimeException e) {
          byKey.put(ByteBuffer.wrap(recordKey), new Object[] {recordKey, null});
          failure = failure == null ? new OperatorException(node, "failed on the window ["
              + start + ", " + end + ") of a key", e) : failure;
        }
      }
    }
    for (Object[] slot : byKey.values()) {
      if (slot[1] == null) {
        continue;
      }
      try {
        results.add(new Object[] {keySerde.fromBytes((byte[]) slot[0]), slot[1]});
      } catch (RuntimeException e) {
        failure = failure == null ? new OperatorException(node, "failed on the window ["
            + start + ", " + end + ") of a key", e) : failure;
      }
    }
    return failure;
  }

  /**
   * Deletes the panes before {@code closedBefore} of the window closed at {@code start}: the
   * keys it read at its close, when every pane before it has gone already (the usual case);
   * else by a range from where the last deletion stopped (after a restart, a window passed over
   * or a failed close). The keys save a RocksDB iterator and a sort of the cache's unwritten
   * entries per window: a windowed count's deletions wait for a commit, 80 windows of them a
   * task, and a range each made the burst after the commit a tenth of its run (bench dsl).
   */
  private void deletePanes(long start, List<byte[]> keys, long closedBefore) {
    if (deletedBefore != start) {
      deletePanesBefore(closedBefore);
      return;
    }
    for (byte[] key : keys) {
      store.delete(key);
    }
    deletedBefore = closedBefore;
  }

  private void deletePanesBefore(long paneStart) {
    long from = deletedBefore == UNKNOWN ? Long.MIN_VALUE : deletedBefore;
    if (paneStart <= from) {
      return;
    }
    List<byte[]> gone = new ArrayList<>();
    try (KeyValueIterator<byte[], byte[]> it = store.range(PaneKeys.start(from),
        PaneKeys.start(paneStart))) {
      while (it.hasNext()) {
        gone.add(it.next().key());
      }
    }
    for (byte[] key : gone) {
      store.delete(key);
    }
    deletedBefore = paneStart;
  }

}
