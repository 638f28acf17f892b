package io.millrace.core.metrics;

import io.millrace.api.metrics.Timer;

/**
 * Count, total and maximum of durations, written by one thread. A disabled timer (the default,
 * see {@code metrics.timers.enabled}) ignores updates, and callers skip the clock reads.
 */
public final class SingleWriterTimer implements Timer {
  private final boolean enabled;
  private volatile long count;
  private volatile long totalNanos;
  private volatile long maxNanos;

  /** A timer that records updates only if {@code enabled}. */
  public SingleWriterTimer(boolean enabled) {
    this.enabled = enabled;
  }

  @Override
  @SuppressWarnings("NonAtomicVolatileUpdate") // one writer thread by contract
  public void update(long nanos) {
    if (!enabled) {
      return;
    }
    count = count + 1;
    totalNanos = totalNanos + nanos;
    if (nanos > maxNanos) {
      maxNanos = nanos;
    }
  }

  @Override
  public boolean enabled() {
    return enabled;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long totalNanos() {
    return totalNanos;
  }

  @Override
  public long maxNanos() {
    return maxNanos;
  }
}
