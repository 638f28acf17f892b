package io.millrace.api.metrics;

/**
 * Durations of an operation: count, total and maximum. Timers cost two clock reads per timed
 * operation, so the runtime's own per-message timers are off unless {@code metrics.timers.enabled}
 * is true; a disabled timer ignores updates.
 */
public interface Timer {
  /** Records one duration in nanoseconds. Owner thread only. */
  void update(long nanos);

  /** Whether updates are recorded; callers may skip reading the clock when this is false. */
  boolean enabled();

  /** How many durations were recorded. */
  long count();

  /** The sum of the recorded durations, in nanoseconds. */
  long totalNanos();

  /** The longest recorded duration, in nanoseconds. */
  long maxNanos();
}
