package io.millrace.spi.coordinator;

import java.util.Map;
import java.util.Set;

/**
 * The container's side of a membership: what happens to its tasks. Called by the membership from
 * inside {@link ContainerMembership#poll}, on the membership's thread, and only there (a call on
 * the container's loop thread is refused: it would wait for itself); each call that changes the
 * container's tasks waits until the container's loop has done it. Tasks are named by their number:
 * task k reads partition k of every input.
 */
public interface MembershipListener {
  /**
   * Tasks leave the container. When this returns, their work is committed (outputs, stores,
   * checkpoint) and they are closed: another member may take them.
   */
  void revoked(Set<Integer> tasks);

  /**
   * Tasks the container lost without a chance to commit (another member owns them already): they
   * are closed and nothing more of theirs is written.
   */
  void lost(Set<Integer> tasks);

  /**
   * Tasks the container takes: when this returns, the container has them. Where it runs no other
   * task their stores are restored and they run; where it does, they are prepared and restored
   * beside the others and start as each is ready (their start is told to {@link
   * ContainerMembership#tasksStarted}).
   */
  void assigned(Set<Integer> tasks);

  /** The tasks the container holds now (running, restoring, leaving). Any thread. */
  Set<Integer> tasks();

  /**
   * What this process holds on local disk, for state-aware assignment: for each task with local
   * store files, the changelog offset those files hold, per store (name -> offset). Empty for a
   * job without persistent stores.
   */
  Map<Integer, Map<String, Long>> localState();

  /**
   * The tasks whose stores this container keeps standby copies of, for the group: it follows
   * their changelogs, so that whichever process takes one of them after a failure replays only
   * the tail. Replaces the previous set; called at the end of every rebalance, after the tasks
   * the container takes are {@link #assigned} (a copy of a task it takes now is then handed to
   * its stores open, not closed first). Default: keeps none (a container without persistent
   * stores has nothing to keep).
   */
  default void standbys(Set<Integer> tasks) {}

  /**
   * How far behind its changelog each standby copy is: task -> records not applied yet over all
   * its stores (-1 while not known). Empty without standbys.
   */
  default Map<Integer, Long> standbyLag() {
    return Map.of();
  }
}
