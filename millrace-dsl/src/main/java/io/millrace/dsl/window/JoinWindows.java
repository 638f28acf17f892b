package io.millrace.dsl.window;

import java.time.Duration;

/**
 * How far apart in event time two records of a stream-stream join may be and still match: a
 * record at {@code t} matches the other side's records at {@code t - difference} to
 * {@code t + difference}, both ends included. That range is the record's join window; it closes
 * once the watermark passes its end plus the grace ({@code t + difference + grace}), and a left
 * or outer join's record without a match comes out then, never before. A record more than the
 * grace behind the watermark when it comes is late: it could match a record whose window has
 * closed. The grace must be stated ({@link Duration#ZERO} for none).
 *
 * <p>Immutable.
 */
public final class JoinWindows {
  private final long differenceMs;
  private final long graceMs;

  private JoinWindows(long differenceMs, long graceMs) {
    this.differenceMs = differenceMs;
    this.graceMs = graceMs;
  }

  /** Records at most {@code difference} apart match; state the grace with {@link #grace}. */
  public static JoinWindows of(Duration difference) {
    if (difference == null || difference.isNegative()) {
      throw new IllegalArgumentException("a join window's time difference must be zero or "
          + "more: " + difference);
    }
    return new JoinWindows(difference.toMillis(), -1);
  }

  /** These windows, taking records up to {@code grace} behind the watermark. */
  public JoinWindows grace(Duration grace) {
    if (grace == null || grace.isNegative()) {
      throw new IllegalArgumentException("a join window's grace must be zero or more: " + grace);
    }
    return new JoinWindows(differenceMs, grace.toMillis());
  }

  /** The largest time difference of a match, in ms. */
  public long differenceMs() {
    return differenceMs;
  }

  /** The grace in ms, or -1 if none was stated. */
  public long graceMs() {
    return graceMs;
  }

  @Override
  public String toString() {
    return "join window +/-" + differenceMs + "ms, grace " + graceMs + "ms";
  }
}
