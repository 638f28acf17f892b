package io.millrace.core.loop;

import io.millrace.api.Cancellable;
import io.millrace.api.ScheduledCallback;
import java.util.PriorityQueue;

/**
 * The callbacks a container's tasks scheduled, soonest first. The loop reads {@link #nextDue}
 * once per cycle (a volatile read: nothing is scheduled, nothing else is paid) and takes what
 * is due. Scheduling may come from another thread (an async task's), hence the lock.
 */
public final class CallbackTimers {
  private final Clock clock;
  private final PriorityQueue<Timer> queue = new PriorityQueue<>((a, b) -> a.due != b.due
      ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private volatile long nextDue = Long.MAX_VALUE;
  private long seq;

  /** Timers due by {@code clock} (the container's; the test driver's). */
  public CallbackTimers(Clock clock) {
    this.clock = clock;
  }

  /** One scheduled callback: its task, when it is due, and its period (0: once). */
  public final class Timer implements Cancellable {
    final TaskInstance task;
    /** What runs. */
    public final ScheduledCallback callback;
    final long period;
    long due;
    long seq;
    boolean cancelled;

    Timer(TaskInstance task, ScheduledCallback callback, long due, long period) {
      this.task = task;
      this.callback = callback;
      this.due = due;
      this.period = period;
    }

    @Override
    public void cancel() {
      synchronized (CallbackTimers.this) {
        cancelled = true;
        queue.remove(this);
        updateNextDue();
      }
    }
  }

  /** The monotonic time the soonest callback is due, or {@code Long.MAX_VALUE} if none is. */
  public long nextDue() {
    return nextDue;
  }

  synchronized Timer add(TaskInstance task, long delayNanos, long periodNanos,
      ScheduledCallback callback) {
    Timer timer = new Timer(task, callback, clock.nanoTime() + delayNanos, periodNanos);
    enqueue(timer);
    return timer;
  }

  /** The soonest callback due at {@code now}, taken off the queue; null if none is. */
  public synchronized Timer pollDue(long now) {
    Timer first = queue.peek();
    if (first == null || first.due > now) {
      return null;
    }
    queue.poll();
    updateNextDue();
    return first;
  }

  /**
   * Puts a periodic callback that ran back, one period after it was due, or after {@code now}
   * if it fell that far behind (no burst to catch up); a one-off is done.
   */
  public synchronized void reschedule(Timer timer, long now) {
    if (timer.period > 0 && !timer.cancelled) {
      timer.due = Math.max(timer.due + timer.period, now + 1);
      enqueue(timer);
    }
  }

  /** Forgets a task's callbacks: it left the container. */
  synchronized void removeAll(TaskInstance task) {
    queue.removeIf(t -> t.task == task);
    updateNextDue();
  }

  private void enqueue(Timer timer) {
    timer.seq = seq++;
    queue.add(timer);
    updateNextDue();
  }

  private void updateNextDue() {
    Timer first = queue.peek();
    nextDue = first == null ? Long.MAX_VALUE : first.due;
  }
}
