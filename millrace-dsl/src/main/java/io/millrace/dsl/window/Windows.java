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
  /** A session window's inactivity gap, or 0 for fixed-size windows. */
  private final long gapMs;
  /** Sliding windows: {@link #sizeMs} is their time difference. */
  private final boolean sliding;

  private Windows(long sizeMs, long advanceMs, long graceMs) {
    this(sizeMs, advanceMs, graceMs, 0, false);
  }

  private Windows(long sizeMs, long advanceMs, long graceMs, long gapMs, boolean sliding) {
    this.sizeMs = sizeMs;
    this.advanceMs = advanceMs;
    this.graceMs = graceMs;
    this.gapMs = gapMs;
    this.sliding = sliding;
  }

  /**
   * Sliding windows (Kafka Streams' sense): windows {@code [start, start + timeDifference]},
   * both ends included, one per distinct set of a key's records that close together: for each
   * record at {@code t}, the window ending at {@code t} ({@code [t - d, t]}), and the window
   * starting just after it ({@code [t + 1, t + 1 + d]}) when it holds a record. A window closes,
   * and its result is emitted, once the watermark passes its end plus the grace; a record more
   * than the grace behind the watermark is late. State the grace with {@link #grace}.
   */
  public static Windows sliding(Duration timeDifference) {
    long ms = positive(timeDifference, "a sliding window's time difference");
    return new Windows(ms, ms, -1, 0, true);
  }

  /** Whether these are sliding windows (whose {@link #sizeMs} is the time difference). */
  public boolean sliding() {
    return sliding;
  }

  /**
   * Session windows: a key's records at most {@code gap} apart (both ends included) are one
   * session, from its first record's time to its last's; a record that falls within the gap of
   * two sessions merges them. A session closes, and its result is emitted, once no record on
   * time could join it: when the watermark passes its last record's time plus the gap plus the
   * grace. A record more than the grace behind the watermark is late. State the grace with
   * {@link #grace}.
   */
  public static Windows session(Duration gap) {
    long ms = positive(gap, "a session window's inactivity gap");
    return new Windows(ms, ms, -1, ms, false);
  }

  /** Whether these are session windows. */
  public boolean session() {
    return gapMs > 0;
  }

  /** A session window's inactivity gap in ms, or 0 for fixed-size windows. */
  public long gapMs() {
    return gapMs;
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
    return new Windows(sizeMs, advanceMs, grace.toMillis(), gapMs, sliding);
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

  /** Whether windows follow one another without overlap (fixed-size ones). */
  public boolean tumbling() {
    return !session() && !sliding && advanceMs == sizeMs;
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
    if (session()) {
      return "session(gap " + gapMs + "ms, grace " + graceMs + "ms)";
    }
    if (sliding) {
      return "sliding(" + sizeMs + "ms, grace " + graceMs + "ms)";
    }
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
