package io.millrace.bench.peers;

/**
 * Counts processed messages across all tasks of one container and notes when the first, the
 * halfway and the target-th message were seen. Written by Samza's single run-loop thread only
 * ({@code job.container.thread.pool.size=0}), so the count needs no atomics; the timestamps are
 * volatile because the main thread reads them after the job finishes.
 */
final class Progress {
  private final long target;
  private final long halfway;
  private long processed;
  private volatile long firstNanos;
  private volatile long halfNanos;
  private volatile long targetNanos;

  Progress(long target) {
    this.target = target;
    this.halfway = Math.max(1, target / 2);
  }

  /** A progress that is never timed: what a task counts into where the runtime does the timing. */
  static Progress untimed() {
    return new Progress(Long.MAX_VALUE);
  }

  void onMessage() {
    long n = ++processed;
    if (n == 1) {
      firstNanos = System.nanoTime();
    }
    if (n == halfway) {
      halfNanos = System.nanoTime();
    }
    if (n == target) {
      targetNanos = System.nanoTime();
    }
  }

  long processed() {
    return processed;
  }

  boolean reachedTarget() {
    return targetNanos != 0;
  }

  long firstNanos() {
    return firstNanos;
  }

  /** Messages per second after the halfway message: the rate once the JIT has warmed up. */
  double secondHalfRate() {
    return (target - halfway) / ((targetNanos - halfNanos) / 1e9);
  }

  long targetNanos() {
    return targetNanos;
  }
}
