package io.millrace.spi.coordinator;

/**
 * One container's place in its job. Loop thread only: the container calls {@link #poll} between
 * deliveries, and the membership calls its {@link MembershipListener} from inside that call, so a
 * container's tasks change only between two messages, never under one.
 */
public interface ContainerMembership {
  /**
   * Does the membership's pending work (a rebalance, a heartbeat's news) and calls the listener if
   * the container's tasks change: revocations first, then assignments. Called every loop cycle at
   * most every {@link #pollIntervalNanos}; must not block beyond that.
   */
  void poll();

  /** How often the container calls {@link #poll} while it has work (it calls it when idle too). */
  default long pollIntervalNanos() {
    return 10_000_000L;
  }

  /**
   * Whether the container may commit now. A membership in the middle of a rebalance answers
   * false: the proof of ownership a commit carries (a group generation) may be outdated before
   * the rebalance ends, and the container commits when it has. Commits that are part of a
   * revocation do not ask. Default: true.
   */
  default boolean mayCommit() {
    return true;
  }

  /**
   * The container found out that it lost all its tasks (its commit was refused because another
   * member owns them) before the membership told it: the membership forgets what it held and
   * rejoins, so that the job and the container agree again. Loop thread. Default: nothing.
   */
  default void lostAll() {}

  /**
   * Tasks the container took started only now, after their stores restored beside its other
   * tasks ({@link MembershipListener#assigned} returned before they did): a membership that
   * reports how long taking tasks took counts until now. Loop thread. Default: nothing.
   */
  default void tasksStarted(java.util.Set<Integer> tasks) {}

  /**
   * Leaves the job. {@code clean}: the container committed and closed its tasks, and other
   * members may take them at once (a coordinator with static membership may instead keep them
   * for a restart of the same instance). Not clean: the container failed.
   */
  void leave(boolean clean);
}
