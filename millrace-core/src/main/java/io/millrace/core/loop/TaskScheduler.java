package io.millrace.core.loop;

import io.millrace.api.Cancellable;
import io.millrace.api.ScheduledCallback;
import java.time.Duration;
import java.util.Objects;

/**
 * A task's side of {@code TaskContext.schedule}: built with the task, attached to its
 * container's timers when the container takes the task (before {@code init}).
 */
public final class TaskScheduler {
  private volatile CallbackTimers timers;
  private volatile TaskInstance task;

  /** Schedules from now on on {@code timers}, for {@code task} (null under the test driver). */
  public void attach(CallbackTimers timers, TaskInstance task) {
    this.task = task;
    this.timers = timers;
  }

  /** Runs {@code callback} once after {@code delay}. */
  public Cancellable schedule(Duration delay, ScheduledCallback callback) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("a callback cannot be scheduled in the past: " + delay);
    }
    return timers().add(task, delay.toNanos(), 0, Objects.requireNonNull(callback, "callback"));
  }

  /** Runs {@code callback} every {@code interval}. */
  public Cancellable scheduleEvery(Duration interval, ScheduledCallback callback) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("a callback's interval must be positive: " + interval);
    }
    long nanos = interval.toNanos();
    return timers().add(task, nanos, nanos, Objects.requireNonNull(callback, "callback"));
  }

  private CallbackTimers timers() {
    CallbackTimers attached = timers;
    if (attached == null) {
      throw new IllegalStateException("callbacks can be scheduled from init on, not before "
          + "(a task's constructor)");
    }
    return attached;
  }
}
