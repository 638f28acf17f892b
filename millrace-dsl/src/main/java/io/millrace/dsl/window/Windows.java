package io.millrace.dsl.window;

import java.time.Duration;

/**
 * Fixed-size windows on event time, aligned to the epoch: tumbling (each record in one window)
 * or hopping (windows of {@code size} starting every {@code advance}, so a record falls in
 * {@code size / advance} of them). Windows are half-open: {@code [start, start + size)}, so a
 * record exactly at a window's end belongs to the next one.
 *
 * <p>The grace is how long after a window's end (in event time, by the watermark) records for it
 * are still taken. It must be stated, {@link Duration#ZERO} included: a window closes, and its
 * final result is emitted, once the watermark reaches its end plus the grace; a record that comes
 * after every window it falls in has closed is late.
 *
 * <p>Immutable.
 */
public final class Windows {
  private final long sizeMs;
  private final long advanceMs;
  private final long graceMs;

  private Windows(long sizeMs, long advanceMs, long graceMs) {
    this.sizeMs = sizeMs;
    this.advanceMs = advanceMs;
    this.graceMs = graceMs;
  }

  /** Windows of {@code size} one after the other; state the grace with {@link #grace}. */
  public static Windows tumbling(Duration size) {
    long ms = positive(size, "a tumbling window's size");
    return new Windows(ms, ms, -1);
  }

  /**
   * Windows of {@code size} starting every {@code advance}; state the grace with {@link #grace}.
   *
   * @throws IllegalArgumentException if {@code advance} is not positive or longer than the size
   */
  public static Windows hopping(Duration size, Duration advance) {
    long s = positive(size, "a hopping window's size");
    long a = positive(advance, "a hopping window's advance");
    if (a > s) {
      throw new IllegalArgumentException("a hopping window's advance (" + advance
          + ") must not be longer than its size (" + size + "): records between would fall in "
          + "no window");
    }
    return new Windows(s, a, -1);
  }

  /** These windows, taking records up to {@code grace} after a window's end. */
  public Windows grace(Duration grace) {
    if (grace == null || grace.isNegative()) {
      throw new IllegalArgumentException("a window's grace must be zero or more: " + grace);
    }
    return new Windows(sizeMs, advanceMs, grace.toMillis());
  }

  /** The size of a window, in ms. */
  public long sizeMs() {
    return sizeMs;
  }

  /** How far apart windows start, in ms (the size for tumbling windows). */
  public long advanceMs() {
    return advanceMs;
  }

  /** The grace in ms, or -1 if none was stated. */
  public long graceMs() {
    return graceMs;
  }

  /** Whether windows follow one another without overlap. */
  public boolean tumbling() {
    return advanceMs == sizeMs;
  }

  /**
   * The length of a pane: the largest slice of time that every window is made of whole (the
   * greatest common divisor of size and advance). A record is stored once, in its pane, however
   * many windows it falls in.
   */
  public long paneMs() {
    long a = sizeMs;
    long b = advanceMs;
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }

  /** The start of the first window that holds {@code time}. */
  public long firstStartHolding(long time) {
    return Math.floorDiv(time - sizeMs, advanceMs) * advanceMs + advanceMs;
  }

  /** The start of the last window that holds {@code time}. */
  public long lastStartHolding(long time) {
    return Math.floorDiv(time, advanceMs) * advanceMs;
  }

  @Override
  public String toString() {
    return (tumbling() ? "tumbling(" + sizeMs + "ms" : "hopping(" + sizeMs + "ms every "
        + advanceMs + "ms") + ", grace " + graceMs + "ms)";
  }

  private static long positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero() || d.toMillis() == 0) {
      throw new IllegalArgumentException(what + " must be at least a millisecond: " + d);
    }
    return d.toMillis();
  }
}
