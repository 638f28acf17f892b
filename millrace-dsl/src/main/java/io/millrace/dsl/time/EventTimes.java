package io.millrace.dsl.time;

/** Arithmetic on event times that never wraps around. */
public final class EventTimes {
  private EventTimes() {}

  /**
   * {@code a + b}, held at {@link Long#MAX_VALUE} or {@link Long#MIN_VALUE} where it would
   * overflow: a window's end plus a long grace, or a time less a difference near the start of
   * time, stays in order instead of wrapping to the other end.
   */
  public static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
  }
}
