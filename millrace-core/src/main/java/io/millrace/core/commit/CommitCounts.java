package io.millrace.core.commit;

import io.millrace.api.CommitProgress;

/**
 * A container's commit counters as its tasks read them ({@link CommitProgress}). The loop moves
 * them; volatile because an async task's messages may run on a worker thread.
 */
public final class CommitCounts implements CommitProgress {
  private volatile long begun;
  private volatile long writtenThrough;

  @Override
  public long begun() {
    return begun;
  }

  @Override
  public long writtenThrough() {
    return writtenThrough;
  }

  /** A commit began; returns its number. Loop thread. */
  public long begin() {
    return ++begun;
  }

  /** Commit {@code number}'s checkpoint was written. Loop thread. */
  public void written(long number) {
    if (number > writtenThrough) {
      writtenThrough = number;
    }
  }
}
