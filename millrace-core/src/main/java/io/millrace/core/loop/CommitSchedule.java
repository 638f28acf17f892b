package io.millrace.core.loop;

import io.millrace.core.commit.Committer;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.coordinator.ContainerMembership;

/**
 * When a container commits, and with what proof of ownership: the periodic commit's timer, the
 * end of a commit's step in the background (an event), a task's request and the final commit, and
 * the membership's ownership permit a commit holds from its offsets to its write (see {@link
 * MembershipRunner}). The loop calls it; the {@link Committer} does the commits.
 *
 * <p>Loop thread only.
 */
final class CommitSchedule {
  /**
   * How often the loop looks again, while a membership poll or a rebalance is under way, whether
   * it may begin or finish a commit.
   */
  private static final long RETRY_NANOS = 1_000_000L;
  private final Committer committer;
  private final TaskManager tasks;
  /** The periodic commit's interval; 0 or less: only on request and at stop. */
  private final long intervalNanos;
  /** The membership and its thread once joined; the thread is null once it stopped. */
  private ContainerMembership membership;
  private MembershipRunner runner;
  /** When the loop next looks at its commits (Long.MAX_VALUE while one is in the background). */
  private long nextNanos = Long.MAX_VALUE;
  /** When the next periodic commit is due. */
  private long periodicNanos = Long.MAX_VALUE;
  /** A commit's step in the background ended while the container could not commit. */
  private boolean finishDeferred;
  /** A commit holds the membership's ownership permit. */
  private boolean ownershipHeld;

  CommitSchedule(Committer committer, TaskManager tasks, long intervalNanos) {
    this.committer = committer;
    this.tasks = tasks;
    this.intervalNanos = intervalNanos;
  }

  /** The container joined: the first periodic commit is one interval away. */
  void start(long now, ContainerMembership membership, MembershipRunner runner) {
    this.membership = membership;
    this.runner = runner;
    if (intervalNanos > 0) {
      nextNanos = now + intervalNanos;
      periodicNanos = nextNanos;
    }
  }

  /** When the loop should look at its commits next. */
  long nextDue() {
    return nextNanos;
  }

  /**
   * The timer: a periodic commit begins (in the background where the committer can), or a finish
   * put off for a rebalance happens; neither while a poll or a rebalance is under way (looked at
   * again a millisecond later), nor while a commit is in the background (its step's end is an
   * event: {@link #stepEnded}).
   */
  void due(long now) {
    if (!holdOwnership()) {
      nextNanos = now + RETRY_NANOS; // without spinning
      return;
    }
    try {
      if (finishDeferred) {
        finishDeferred = false;
        if (committer.inProgress() && committer.stepEnded()) {
          committer.finish(); // (else its step's end is an event still to come)
        }
      } else if (!committer.inProgress() && now >= periodicNanos) {
        committer.begin();
        periodicNanos = now + intervalNanos;
      }
    } catch (CommitFencedException e) {
      fenced(e);
    } finally {
      releaseOwnership();
    }
    reschedule(now);
  }

  /**
   * Event: the commit in the background ended a step (its waits, or its write off the loop):
   * finished now, or once the container may commit again.
   */
  void stepEnded(long now) {
    if (holdOwnership()) {
      try {
        committer.finish();
      } catch (CommitFencedException e) {
        fenced(e);
      } finally {
        releaseOwnership();
      }
    } else {
      finishDeferred = true;
    }
    reschedule(now);
  }

  /**
   * A task asked for a commit: runs a whole one now if the container may commit, else says no
   * (the loop asks again next cycle).
   */
  boolean commitIfOwner(long now) {
    if (!holdOwnership()) {
      return false;
    }
    try {
      commit(now);
    } finally {
      releaseOwnership();
    }
    return true;
  }

  /**
   * Runs a whole commit now (the final one, or after a task's failure).
   *
   * @return false if the commit was fenced: another member owns the tasks, which are lost now
   */
  boolean commit(long now) {
    try {
      committer.commit();
      return true;
    } catch (CommitFencedException e) {
      fenced(e);
      return false;
    } finally {
      finishDeferred = false; // a whole commit settled the one in the background first
      reschedule(now);
    }
  }

  /**
   * A commit or a send was refused: every task of the container is lost (what follows is the
   * membership's to decide: a group rejoins, a local one stops).
   */
  void fenced(CommitFencedException e) {
    try {
      tasks.fenced(e);
    } finally {
      releaseOwnership(); // the commit that held it was dropped with the tasks
    }
  }

  /**
   * Once a cycle, after the events: a commit that ended another way than through this schedule
   * (settled by a loss or a revoke's removal, begun and written by a revoke) gives the permit back
   * and lets the periodic timer run again. Two field reads when nothing changed.
   *
   * @return whether the timer moved
   */
  boolean check(long now) {
    if (finishDeferred && tasks.revoking()) {
      // A finish put off because a poll held the permit: that poll is a revoke now waiting for
      // this very commit, and a revoke needs no permit. (Not left to the timer: a loop whose
      // clock stands still would wait for it forever.)
      due(now);
      return true;
    }
    if (ownershipHeld) {
      releaseOwnership();
    }
    if (nextNanos == Long.MAX_VALUE && intervalNanos > 0 && !committer.inProgress()) {
      nextNanos = periodicNanos; // (its step's end, the event that would have, never comes)
      return true;
    }
    return false;
  }

  /**
   * The membership's thread is stopping: the permit goes back (a thread waiting for it sees the
   * stop and ends without polling), and from here commits need none.
   */
  void membershipStopping() {
    if (ownershipHeld) {
      ownershipHeld = false;
      runner.release();
    }
    runner = null;
  }

  /**
   * Takes the membership's ownership permit for a commit that may write now: none while a poll
   * may change the member's place in its group, nor during a rebalance (the proof a commit
   * carries may be outdated before it ends). A revocation under way needs none: the membership
   * waits in its call for it. True once the membership stopped (the final commit).
   */
  private boolean holdOwnership() {
    if (ownershipHeld || runner == null || tasks.revoking()) {
      return true;
    }
    if (!runner.tryHold()) {
      return false; // a poll is in progress: looked at again soon
    }
    boolean may = false;
    try {
      may = membership.mayCommit();
    } finally {
      if (!may) {
        runner.release();
      }
    }
    if (!may) {
      return false;
    }
    ownershipHeld = true;
    return true;
  }

  /**
   * Gives the permit back once no commit's offsets wait for their write (a write off the loop
   * keeps it until it ends).
   */
  private void releaseOwnership() {
    if (ownershipHeld && !committer.offsetsTaken()) {
      ownershipHeld = false;
      if (runner != null) {
        runner.release();
      }
    }
  }

  /**
   * When the loop looks at its commits next: not while one is in the background (its step's end
   * is an event), soon while a finished step waits for a rebalance to end, else at the next
   * periodic commit. After anything that may have begun, finished or dropped a commit.
   */
  private void reschedule(long now) {
    nextNanos = finishDeferred ? now + RETRY_NANOS
        : committer.inProgress() ? Long.MAX_VALUE : periodicNanos;
  }
}
