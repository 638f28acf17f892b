package io.millrace.test;

import io.millrace.api.Cancellable;
import io.millrace.api.ScheduledCallback;
import java.time.Duration;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;

/** The task's scheduled callbacks under the driver: due by the driver's clock, in ms. */
final class DriverTimers {
  private final LongSupplier clock;
  private final PriorityQueue<Timer> queue = new PriorityQueue<>((a, b) -> a.due != b.due
      ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private long seq;

  DriverTimers(LongSupplier clock) {
    this.clock = clock;
  }

  final class Timer implements Cancellable {
    final ScheduledCallback callback;
    final long period;
    long due;
    long seq;
    boolean cancelled;

    Timer(ScheduledCallback callback, long due, long period) {
      this.callback = callback;
      this.due = due;
      this.period = period;
    }

    @Override
    public void cancel() {
      cancelled = true;
      queue.remove(this);
    }
  }

  Cancellable schedule(Duration delay, ScheduledCallback callback) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("a callback cannot be scheduled in the past: " + delay);
    }
    return add(new Timer(Objects.requireNonNull(callback, "callback"),
        clock.getAsLong() + delay.toMillis(), 0));
  }

  Cancellable scheduleEvery(Duration interval, ScheduledCallback callback) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("a callback's interval must be positive: " + interval);
    }
    return add(new Timer(Objects.requireNonNull(callback, "callback"),
        clock.getAsLong() + interval.toMillis(), interval.toMillis()));
  }

  /** When the soonest callback is due, or {@code Long.MAX_VALUE}. */
  long nextDue() {
    Timer first = queue.peek();
    return first == null ? Long.MAX_VALUE : first.due;
  }

  /** Takes the soonest callback off the queue (it is due). */
  Timer poll() {
    return queue.poll();
  }

  /** A periodic callback that ran comes back one period later. */
  void reschedule(Timer timer) {
    if (timer.period > 0 && !timer.cancelled) {
      timer.due += timer.period;
      add(timer);
    }
  }

  private Timer add(Timer timer) {
    timer.seq = seq++;
    queue.add(timer);
    return timer;
  }
}
