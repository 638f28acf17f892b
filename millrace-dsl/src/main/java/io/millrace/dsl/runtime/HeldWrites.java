package io.millrace.dsl.runtime;

import io.millrace.api.CommitProgress;
import java.util.ArrayDeque;

/**
 * A task's store writes that must not become durable before the results sent ahead of them: a
 * closed window's deletions and its progress. Under at-least-once a commit's producer sends the
 * changelog and the outputs each in its own time, so a deletion could reach the changelog while
 * the window's result was still on its way, and a crash then lose the result for good (the
 * replayed records find the window closed). Each write is held until a commit that began after
 * it was made has been written, which acknowledges every result sent before it; the task runs
 * the held writes that are due at its next record or tick. After a crash the store still holds
 * the windows and their records, and a restarted task emits them again: at least once.
 *
 * <p>The last closes, when every input ended, wait as the others do: a clean stop commits, closes
 * the task (which writes what is due then: everything) and commits again, so a job that ended
 * leaves nothing behind. Under exactly-once a transaction holds the outputs and the changelog
 * together, and with commits only when asked ({@code task.commit.ms <= 0}) none may come to let
 * the writes go: writes run at once there (the second, with the exposure above). Task thread
 * only.
 */
final class HeldWrites {
  /** Held writes, with the number of the commit each waits for; in the order made. */
  private record Held(long commit, Runnable writes) {}

  private final CommitProgress commits;
  private final ArrayDeque<Held> held = new ArrayDeque<>();
  private final boolean atOnce;

  /**
   * @param commits the task's commit counters, or null to write at once
   */
  HeldWrites(CommitProgress commits) {
    this.commits = commits;
    this.atOnce = commits == null;
  }

  /** Runs {@code writes} once every result sent so far is acknowledged: now, or later. */
  void after(Runnable writes) {
    if (atOnce) {
      writes.run();
    } else {
      held.add(new Held(commits.begun() + 1, writes));
    }
  }

  /**
   * Runs the held writes whose commit has been written, in the order they were made. A write
   * that throws (its store failed) stays first in line and is tried again at the next call, so
   * that an error policy that skips the record at hand does not lose it (a window's panes left
   * in the store for good); the writes are deletions and progress, which bear a second run.
   */
  void runDue() {
    if (held.isEmpty()) {
      return; // (the common case: one check a record)
    }
    long written = commits.writtenThrough();
    while (!held.isEmpty() && held.peekFirst().commit <= written) {
      held.peekFirst().writes.run();
      held.pollFirst();
    }
  }

  /** How many writes are held (tests). */
  int size() {
    return held.size();
  }
}
