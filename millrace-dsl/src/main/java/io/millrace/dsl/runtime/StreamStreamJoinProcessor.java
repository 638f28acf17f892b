package io.millrace.dsl.runtime;

import static io.millrace.dsl.time.EventTimes.saturatedAdd;

import io.millrace.dsl.serde.LongSerde;
import io.millrace.api.Serde;
import io.millrace.api.metrics.Counter;
import io.millrace.dsl.function.ValueJoiner;
import io.millrace.dsl.plan.JoinKind;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.time.WatermarkTracker;
import io.millrace.dsl.window.JoinWindows;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Two streams joined by key within a join window, each side's records waiting in its own store
 * ({@link JoinBuffer}; only their times and keys are indexed on the heap).
 *
 * <p><b>Matching.</b> A record at {@code t} is looked up against the other side's records of its
 * key from {@code t - d} to {@code t + d}; each match is passed on at once, at the later of the
 * two times, and the record waits in its own side's store for records still to come.
 *
 * <p><b>Closing.</b> A record's join window closes once the watermark passes
 * {@code t + d + grace}: it leaves its store then, and in a left or outer join, if it matched
 * nothing, it is passed on joined with null, then and only then (never on the first record that
 * fails to match: KAFKA-10847). A record more than the grace behind the watermark is late (its
 * window would hold a record whose own has closed, whose missing match may have been emitted):
 * it is counted ({@code <name>-late-records}) and dropped. So two on-time records within
 * {@code d} of each other always meet, whatever their order.
 *
 * <p><b>Restarts.</b> The watermark the stores were last expired at is kept in the left store,
 * so a restarted task takes no record that was late before it stopped.
 */
final class StreamStreamJoinProcessor implements WatermarkListener {
  private final Node node;
  private final JoinKind kind;
  private final ValueJoiner<Object, Object, Object> joiner;
  private final long differenceMs;
  private final long graceMs;
  private final JoinBuffer left;
  private final JoinBuffer right;
  private final Serde<Object> keySerde;
  private final Serde<Object> leftSerde;
  private final Serde<Object> rightSerde;
  /** The watermark it was last moved to: its partitions', less what is held before it. */
  private final LongSupplier watermark;
  private final Processor[] children;
  private final Counter late;
  /** Where a close's removals and progress wait for what it passed on to be acknowledged. */
  private final HeldWrites held;
  /** The watermark the stores were last expired at, or NONE. */
  private long progress;
  /**
   * Records before this time were passed on, but are still in the stores after a failure in
   * doing so (see {@link #advanceTo}); none: NONE.
   */
  private long passedBefore = WatermarkTracker.NONE;
  /**
   * The stores hold no record before this time: they were taken out up to it (NONE: not known,
   * as after a restart). Closing windows starts here.
   */
  private long removedBefore = WatermarkTracker.NONE;

  StreamStreamJoinProcessor(Node node, JoinKind kind, ValueJoiner<Object, Object, Object> joiner,
      JoinWindows windows, JoinBuffer left, JoinBuffer right, Serde<Object> keySerde,
      Serde<Object> leftSerde, Serde<Object> rightSerde, LongSupplier watermark,
      Processor[] children, Counter late, HeldWrites held) {
    this.node = node;
    this.kind = kind;
    this.joiner = joiner;
    this.differenceMs = windows.differenceMs();
    this.graceMs = windows.graceMs();
    this.left = left;
    this.right = right;
    this.keySerde = keySerde;
    this.leftSerde = leftSerde;
    this.rightSerde = rightSerde;
    this.watermark = watermark;
    this.children = children;
    this.late = late;
    this.held = held;
    byte[] saved = left.store().get(PaneKeys.PROGRESS);
    this.progress = saved == null ? WatermarkTracker.NONE : LongSerde.value(saved);
  }

  /** Where one side's records come in. */
  Processor side(boolean isLeft) {
    return (key, value, timestamp) -> process(isLeft, key, value, timestamp);
  }

  private void process(boolean isLeft, Object key, Object value, long timestamp) {
    JoinBuffer own = isLeft ? left : right;
    JoinBuffer other = isLeft ? right : left;
    List<JoinBuffer.Entry> matches = List.of();
    Object[] results = null; // made only when something matched: most records match nothing
    EventTimeRecords.check(node, key, value, timestamp, "join");
    try {
      long wm = Math.max(watermark.getAsLong(), progress);
      if (wm != WatermarkTracker.NONE && saturatedAdd(timestamp, graceMs) < wm) {
        late.inc();
        return;
      }
      byte[] recordKey = keySerde.toBytes(key);
      matches = other.find(saturatedAdd(timestamp, -differenceMs),
          saturatedAdd(timestamp, differenceMs), recordKey);
      if (!matches.isEmpty()) {
        Serde<Object> otherSerde = isLeft ? rightSerde : leftSerde;
        results = new Object[matches.size()];
        for (int i = 0; i < results.length; i++) {
          Object otherValue = otherSerde.fromBytes(matches.get(i).value());
          results[i] = isLeft ? joiner.apply(value, otherValue) : joiner.apply(otherValue, value);
        }
      }
      if (isLeft ? kind.keepsRight() : kind.keepsLeft()) {
        other.markMatched(matches);
      }
      own.add(timestamp, recordKey, (isLeft ? leftSerde : rightSerde).toBytes(value),
          !matches.isEmpty());
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    for (int i = 0; results != null && i < results.length; i++) {
      // A result is as late as the later of the two records it joins.
      for (Processor child : children) { // (its own call: see PipelineRuntime#process)
        child.process(key, results[i], Math.max(timestamp, matches.get(i).time()));
      }
    }
  }

  /**
   * Takes out every record whose window {@code wm} has closed, and passes on, in time order, a
   * left or outer join's records among them that matched nothing. A failure on one of them (the
   * joiner's, a later operator's) does not stop the others: the first is thrown after them, so
   * the task's error policy applies once and no record is passed on twice by this task. The
   * records leave the stores, and the progress is stored, only once they are all out and
   * acknowledged ({@link HeldWrites}: a restart before that passes them on again): after a
   * failure, under {@code task.error.policy=fail}, the task stops with them still in its stores
   * and a restarted task passes them on again (at least once); under {@code skip} the next
   * watermark takes them out.
   */
  @Override
  public void advanceTo(long wm) {
    if (wm == WatermarkTracker.NONE || wm <= progress) {
      return;
    }
    long before = wm == Long.MAX_VALUE ? Long.MAX_VALUE
        : saturatedAdd(wm, -saturatedAdd(differenceMs, graceMs)); // closed: t + d + grace < wm
    long from = Math.max(passedBefore, removedBefore);
    // Only a left or outer join's records without a match come out: an inner join reads none.
    List<JoinBuffer.Entry> lefts = kind.keepsLeft() ? left.between(from, before) : List.of();
    List<JoinBuffer.Entry> rights = kind.keepsRight() ? right.between(from, before) : List.of();
    RuntimeException failure = null;
    int l = 0;
    int r = 0;
    while (l < lefts.size() || r < rights.size()) {
      boolean takeLeft = r >= rights.size()
          || l < lefts.size() && lefts.get(l).time() <= rights.get(r).time();
      JoinBuffer.Entry e = takeLeft ? lefts.get(l++) : rights.get(r++);
      if (e.matched() || !(takeLeft ? kind.keepsLeft() : kind.keepsRight())) {
        continue;
      }
      try {
        unmatched(e, takeLeft);
      } catch (RuntimeException ex) {
        if (failure == null) {
          failure = ex;
        }
      }
    }
    if (failure != null && wm != Long.MAX_VALUE) {
      progress = wm; // this task takes no record for them, nor passes them on again
      passedBefore = Math.max(passedBefore, before);
      throw failure;
    }
    long removeFrom = removedBefore;
    passedBefore = WatermarkTracker.NONE;
    // Every input ended and every record is out: a job that reads its inputs again from the
    // start (offset.reset) joins them afresh.
    boolean done = wm == Long.MAX_VALUE;
    byte[] saved = done ? null : LongSerde.bytes(wm);
    progress = done ? WatermarkTracker.NONE : wm;
    removedBefore = done ? WatermarkTracker.NONE : before;
    held.after(() -> { // once what was passed on is acknowledged
      left.removeBetween(removeFrom, before);
      right.removeBetween(removeFrom, before);
      if (saved == null) {
        left.store().delete(PaneKeys.PROGRESS);
      } else {
        left.store().put(PaneKeys.PROGRESS, saved);
      }
    });
    if (failure != null) {
      // At the end, after the cleanup is held: no later watermark would take the records out
      // under skip, and under fail the task stops before a commit applies it.
      throw failure;
    }
  }

  private void unmatched(JoinBuffer.Entry e, boolean isLeft) {
    Object key = null;
    Object value = null;
    Object result;
    try {
      key = keySerde.fromBytes(e.recordKey());
      value = (isLeft ? leftSerde : rightSerde).fromBytes(e.value());
      result = isLeft ? joiner.apply(value, null) : joiner.apply(null, value);
    } catch (RuntimeException ex) {
      throw OperatorException.on(node, key, value, ex);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, result, e.time());
    }
  }

}
