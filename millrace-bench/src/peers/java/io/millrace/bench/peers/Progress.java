package io.millrace.bench.peers;

/**
 * Counts processed messages across all tasks of one container and notes when the first and the
 * target-th message were seen. Written by Samza's single run-loop thread only
 * ({@code job.container.thread.pool.size=0}), so the count needs no atomics; the timestamps are
 * volatile because the main thread reads them after the job finishes.
 */
final class Progress {
  private final long target;
  private long processed;
  private volatile long firstNanos;
  private volatile long halfNanos;
  private volatile long targetNanos;

  Progress(long target) {
    this.target = target;
  }

  void onMessage() {
    long n = ++processed;
    if (n == 1) {
      firstNanos = System.nanoTime();
    }
    if (n == target / 2) {
      halfNanos = System.nanoTime(); // the second half shows the rate once the JIT has warmed up
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

  long halfNanos() {
    return halfNanos;
  }

  long targetNanos() {
    return targetNanos;
  }
}
