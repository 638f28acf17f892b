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
  /**
   * Store entries whose deletion may wait for the next periodic commit ({@code task.commit.ms},
   * a minute by default) before the task asks for one sooner: the default object cache's size,
   * so that closed windows do not crowd the open ones out of it (a store grown past its cache
   * reads from the engine). At least two closes' worth wait, though: a commit flushes every
   * RocksDB store's memtables to files, and a commit per close (a windowed count's panes of
   * 125 keys asked for one every 1,000 entries) cost a windowed count 14% of its speed.
   */
  static final int COMMIT_AT_ENTRIES = 10_000;

  /** Held writes, with the number of the commit each waits for and the entries they delete. */
  private record Held(long commit, int entries, Runnable writes) {}

  private final CommitProgress commits;
  private final ArrayDeque<Held> held = new ArrayDeque<>();
  private final boolean atOnce;
  /** The entries the held writes delete, and those of the last one held. */
  private long heldEntries;
  private int lastEntries;
  /** The commit the task last asked for (the number it would have), or -1. */
  private long requested = -1;

  /**
   * @param commits the task's commit counters, or null to write at once
   */
  HeldWrites(CommitProgress commits) {
    this.commits = commits;
    this.atOnce = commits == null;
  }

  /** Runs {@code writes} once every result sent so far is acknowledged: now, or later. */
  void after(Runnable writes) {
    after(1, writes);
  }

  /**
   * As {@link #after(Runnable)}, for writes that delete about {@code entries} store entries
   * (what a closed window leaves behind until they run).
   */
  void after(int entries, Runnable writes) {
    if (atOnce) {
      writes.run();
    } else {
      held.add(new Held(commits.begun() + 1, entries, writes));
      heldEntries += entries;
      lastEntries = entries;
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
      Held first = held.peekFirst();
      first.writes.run();
      held.pollFirst();
      heldEntries -= first.entries;
    }
  }

  /**
   * Whether the task should ask for a commit now: the held writes delete at least {@link
   * #COMMIT_AT_ENTRIES} entries and two closes' worth (the last one's), and the commit it asked
   * for last (if any) has been written. Once per such commit.
   */
  boolean commitWanted() {
    if (heldEntries < COMMIT_AT_ENTRIES || heldEntries < 2L * lastEntries
        || requested > commits.writtenThrough()) {
      return false; // (one comparison a record in the common case)
    }
    requested = commits.begun() + 1;
    return true;
  }

  /** How many writes are held (tests). */
  int size() {
    return held.size();
  }
}
