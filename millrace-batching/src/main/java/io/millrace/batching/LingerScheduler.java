package io.millrace.batching;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link Batcher}'s linger timers: the one piece of a batcher that knows about time, so a
 * test can replace it with a scheduler it advances by hand.
 *
 * <p>{@link #shared()} is the default: one daemon thread for every batcher of the process. Timers
 * are per batch, not per request, and a timer's task only hands the batch to its
 * {@link BatchCall}, which returns at once, so one thread is enough.
 */
@FunctionalInterface
public interface LingerScheduler {
  /**
   * Runs {@code task} once, on a thread of the scheduler's choosing, after {@code delayNanos}.
   *
   * @param task what to run; it never blocks and never throws
   * @param delayNanos how long to wait, in nanoseconds ({@code 0} or less: as soon as possible)
   * @return a handle to cancel the task if it has not run yet
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /**
   * A scheduled task that may be cancelled. Cancelling is only a hint to free the timer early: a
   * batcher's timer that runs anyway does nothing.
   */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task if it has not run yet; does nothing otherwise. */
    void cancel();
  }

  /**
   * The default scheduler: one daemon thread, named {@code millrace-batcher-linger}, shared by
   * every batcher of the process and started on first use.
   */
  static LingerScheduler shared() {
    return SharedLingerScheduler.INSTANCE;
  }

  /**
   * A scheduler that runs timers on the given executor, e.g. one the application already has.
   * The caller owns the executor and shuts it down.
   */
  static LingerScheduler of(ScheduledExecutorService executor) {
    Objects.requireNonNull(executor, "executor");
    return (task, delayNanos) -> {
      ScheduledFuture<?> future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
      return () -> future.cancel(false);
    };
  }
}
