package io.millrace.batching;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A {@link LingerScheduler} for tests: time stands still until the test advances it, and due
 * tasks run on the advancing thread. Thread-safe; tasks run outside its lock.
 */
final class ManualLingerScheduler implements LingerScheduler {
  /** One scheduled task. */
  static final class Timer implements Cancellable {
    final Runnable task;
    final long dueNanos;
    final long sequence;
    volatile boolean cancelled;
    volatile boolean ran;

    Timer(Runnable task, long dueNanos, long sequence) {
      this.task = task;
      this.dueNanos = dueNanos;
      this.sequence = sequence;
    }

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  private final List<Timer> timers = new ArrayList<>();
  private long nowNanos;
  private long sequence;

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayNanos) {
    Timer timer = new Timer(task, nowNanos + Math.max(0, delayNanos), sequence++);
    timers.add(timer);
    return timer;
  }

  /** Moves time forward and runs the tasks that fall due (and were not cancelled), in order. */
  void advance(Duration by) {
    long until;
    synchronized (this) {
      until = nowNanos + by.toNanos();
    }
    while (true) {
      Timer next;
      synchronized (this) {
        next =
            timers.stream()
                .filter(t -> !t.ran && !t.cancelled && t.dueNanos <= until)
                .min(Comparator.comparingLong((Timer t) -> t.dueNanos)
                    .thenComparingLong(t -> t.sequence))
                .orElse(null);
        if (next == null) {
          nowNanos = until;
          return;
        }
        nowNanos = Math.max(nowNanos, next.dueNanos);
        next.ran = true;
      }
      next.task.run();
    }
  }

  /**
   * Runs a timer's task now even if it was cancelled or is not due: a timer whose cancel came
   * too late (it had already started on the scheduler's thread).
   */
  void fireAnyway(Timer timer) {
    synchronized (this) {
      timer.ran = true;
    }
    timer.task.run();
  }

  /** Every timer scheduled so far, oldest first. */
  synchronized List<Timer> timers() {
    return new ArrayList<>(timers);
  }

  /** Timers neither run nor cancelled. */
  synchronized long live() {
    return timers.stream().filter(t -> !t.ran && !t.cancelled).count();
  }
}
