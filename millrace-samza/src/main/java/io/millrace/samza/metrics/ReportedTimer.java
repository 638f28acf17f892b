package io.millrace.samza.metrics;

import java.util.concurrent.atomic.LongAdder;
import org.apache.samza.metrics.Timer;

/**
 * Samza's {@link Timer} (its sliding-window snapshot stays as it is) that also counts its updates
 * and sums their durations, which Millrace reports. Thread-safe, as Samza's.
 */
public final class ReportedTimer extends Timer {
  private final LongAdder count = new LongAdder();
  private final LongAdder total = new LongAdder();

  public ReportedTimer(String name) {
    super(name);
  }

  @Override
  public void update(long duration) {
    super.update(duration);
    count.increment();
    total.add(duration);
  }

  /** How many durations were recorded. */
  public long count() {
    return count.sum();
  }

  /** The sum of the recorded durations. */
  public long total() {
    return total.sum();
  }
}
