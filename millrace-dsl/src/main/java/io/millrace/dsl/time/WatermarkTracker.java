package io.millrace.dsl.time;

import java.util.Arrays;

/**
 * A task's event-time watermark: how far its inputs have gone in event time, so that windows
 * ending before it can close. One per task; the loop thread only.
 *
 * <p>Each input partition's watermark is the latest timestamp seen in it less its bounded
 * out-of-orderness (a record at most that much older than one seen before is still on time). The
 * task's watermark is the minimum over its partitions, so a partition that is behind holds the
 * others back, as it must: its records would otherwise all be late. Two exceptions keep a quiet
 * partition from holding everything back (Flink's FLINK-5479, Kafka Streams' windows that never
 * close on a quiet partition):
 * <ul>
 *   <li>a partition that has had no record for the idle timeout is left out of the minimum until
 *       it has one again (when every partition is idle, the watermark is the highest of theirs);
 *   <li>with the wall-clock advance on, once every partition is idle the watermark moves on with
 *       the clock from the last record, so a quiet input still closes its windows.
 * </ul>
 * Idleness is judged on the task's clock between records arriving at the task, not on how busy
 * the loop is: a partition waiting behind another (back-pressure) is not idle, since the loop
 * polls only partitions whose buffers are empty and records keep arriving from it.
 *
 * <p>The watermark never goes back. Times are milliseconds; {@link Long#MIN_VALUE} means "none
 * yet", {@link Long#MAX_VALUE} "every input has ended".
 */
public final class WatermarkTracker {
  /** No watermark yet. */
  public static final long NONE = Long.MIN_VALUE;

  private final long[] outOfOrder;
  private final long[] maxTimestamp;
  private final long[] lastRecordAt;
  /**
   * Whether a partition has had records but none with a timestamp: it carries no event time,
   * so it holds no window back (a stream feeding only a stateless branch, say).
   */
  private final boolean[] untimed;
  /**
   * Whether a partition's watermark is given (a repartition's, from its senders), and whether
   * they said it is idle: such a partition is active as they say, not by a timeout of its own.
   */
  private final boolean[] given;
  private final boolean[] givenIdle;
  private final long idleTimeoutMs;
  private final boolean wallClockAdvance;
  private long watermark = NONE;

  /**
   * A tracker for partitions {@code 0 .. outOfOrderMs.length - 1}.
   *
   * @param outOfOrderMs each partition's bounded out-of-orderness
   * @param idleTimeoutMs how long a partition without records is still waited for (0 or less:
   *     always)
   * @param wallClockAdvance whether the watermark follows the clock once every partition is idle
   * @param now the task's clock at start: a partition that never has a record is idle from then
   *     on after the timeout
   */
  public WatermarkTracker(long[] outOfOrderMs, long idleTimeoutMs, boolean wallClockAdvance,
      long now) {
    this.outOfOrder = outOfOrderMs.clone();
    this.maxTimestamp = new long[outOfOrderMs.length];
    this.lastRecordAt = new long[outOfOrderMs.length];
    this.untimed = new boolean[outOfOrderMs.length];
    this.given = new boolean[outOfOrderMs.length];
    this.givenIdle = new boolean[outOfOrderMs.length];
    Arrays.fill(maxTimestamp, NONE);
    Arrays.fill(lastRecordAt, now);
    this.idleTimeoutMs = idleTimeoutMs;
    this.wallClockAdvance = wallClockAdvance;
  }

  /**
   * A record arrived in {@code partition} with event time {@code timestamp} at {@code now} on the
   * task's clock. A partition whose records have no timestamp (-1) is left out of the minimum
   * until one has.
   *
   * @return the watermark after it
   */
  public long observe(int partition, long timestamp, long now) {
    if (timestamp >= 0 && timestamp > maxTimestamp[partition]) {
      maxTimestamp[partition] = timestamp;
    }
    untimed[partition] = maxTimestamp[partition] == NONE;
    lastRecordAt[partition] = now;
    return recompute(now);
  }

  /**
   * As {@link #observe}, without working out the task's watermark: the runtime's per-record
   * call, which asks for the watermarks it needs ({@link #watermarkOf}) only when this says they
   * may have moved.
   *
   * @return whether the partition's standing changed: its latest timestamp rose, or it went
   *     from having no timestamp to having one or the other way (a record alone moves no
   *     watermark otherwise: one that was idle and is active again only adds a lower partition,
   *     and watermarks never go back)
   */
  public boolean record(int partition, long timestamp, long now) {
    boolean moved = false;
    if (timestamp >= 0 && timestamp > maxTimestamp[partition]) {
      maxTimestamp[partition] = timestamp;
      moved = true;
    }
    boolean nowUntimed = maxTimestamp[partition] == NONE;
    if (nowUntimed != untimed[partition]) {
      untimed[partition] = nowUntimed;
      moved = true;
    }
    lastRecordAt[partition] = now;
    return moved;
  }

  /**
   * A partition whose watermark is given rather than made from its records' timestamps: a
   * repartition's, the lowest of the watermarks its upstream tasks send along ({@code NONE}
   * while one of them has sent none). Its out-of-orderness is not applied again. Its senders
   * say whether it is idle ({@code idle}: every one of them is), not the idle timeout: their
   * markers keep coming whether they have records or not.
   *
   * @return the watermark after it
   */
  public long observeWatermark(int partition, long partitionWatermark, boolean idle, long now) {
    outOfOrder[partition] = 0;
    if (partitionWatermark > maxTimestamp[partition]) {
      maxTimestamp[partition] = partitionWatermark;
    }
    untimed[partition] = false;
    given[partition] = true;
    givenIdle[partition] = idle;
    lastRecordAt[partition] = now;
    return recompute(now);
  }

  /**
   * Whether none of {@code partitions} is active at {@code now}: each is idle (one that never
   * had a record, after the idle timeout), or has had records but none with a timestamp. A repartition's sender says so, so that its receivers leave it out.
   */
  public boolean idleOf(int[] partitions, long now) {
    for (int p : partitions) {
      if (!untimed[p] && active(p, now)) {
        return false; // has records, or is still waited for (it may yet have some)
      }
    }
    return partitions.length > 0;
  }

  private boolean active(int p, long now) {
    if (given[p]) {
      return !givenIdle[p];
    }
    return idleTimeoutMs <= 0 || now - lastRecordAt[p] < idleTimeoutMs;
  }

  /**
   * The watermark over some partitions only, as the task's is made over all of them (without
   * its never-going-back): what a repartition's records are behind, over the partitions that
   * feed it. {@link Long#MAX_VALUE} for none.
   */
  public long watermarkOf(int[] partitions, long now) {
    return partitions.length == 0 ? Long.MAX_VALUE : compute(partitions, now);
  }

  /** The watermark at {@code now}, as the clock alone moves it (idleness, wall-clock advance). */
  public long advance(long now) {
    return recompute(now);
  }

  /** Every input ended: every window may close. */
  public long end() {
    watermark = Long.MAX_VALUE;
    return watermark;
  }

  /** The watermark as last computed. */
  public long watermark() {
    return watermark;
  }

  private long recompute(long now) {
    long candidate = compute(null, now);
    if (candidate > watermark) {
      watermark = candidate;
    }
    return watermark;
  }

  /** The watermark of {@code partitions} (null: all) at {@code now}. */
  private long compute(int[] partitions, long now) {
    long activeMin = Long.MAX_VALUE;
    boolean anyActive = false;
    long highest = NONE;
    long lastRecord = Long.MIN_VALUE;
    int count = partitions == null ? maxTimestamp.length : partitions.length;
    for (int i = 0; i < count; i++) {
      int p = partitions == null ? i : partitions[i];
      if (untimed[p]) {
        continue;
      }
      long own = maxTimestamp[p] == NONE ? NONE : maxTimestamp[p] - outOfOrder[p];
      highest = Math.max(highest, own);
      lastRecord = Math.max(lastRecord, lastRecordAt[p]);
      if (active(p, now)) {
        anyActive = true;
        activeMin = Math.min(activeMin, own);
      }
    }
    long candidate;
    if (anyActive) {
      candidate = activeMin;
    } else if (wallClockAdvance && highest != NONE) {
      candidate = EventTimes.saturatedAdd(highest, now - lastRecord);
    } else {
      candidate = highest;
    }
    return candidate;
  }
}
