package io.millrace.spi.coordinator;

/**
 * One container's place in its job. The container polls it on a thread of its own (the
 * membership's thread, not the container's loop), and the membership calls its {@link
 * MembershipListener} from inside {@link #poll}: each call waits there while the container's loop
 * does what it asks, between two deliveries, so a container's tasks change only between two
 * messages, never under one, and the tasks that stay go on meanwhile.
 *
 * <p>Threading: {@link #poll} and {@link #pollIntervalNanos} on the membership's thread. {@link
 * #mayCommit} from the container's loop while it holds its ownership permit: never during a poll
 * (the membership's thread waits for the permit), so what a poll changes is seen. {@link
 * #lostAll} and {@link #tasksStarted} from the loop, at any time. {@link #leave} from the loop,
 * once the membership's thread stopped.
 */
public interface ContainerMembership {
  /**
   * Does the membership's pending work (a rebalance, a heartbeat's news) and calls the listener if
   * the container's tasks change: revocations first, then assignments. Called on the membership's
   * thread every {@link #pollIntervalNanos}; must not block beyond that but for the listener's
   * calls, which wait for the container.
   */
  void poll();

  /**
   * How often the container calls {@link #poll}; {@code Long.MAX_VALUE}: never again (the
   * container's tasks never change after this poll, and it ends when its inputs do).
   */
  default long pollIntervalNanos() {
    return 10_000_000L;
  }

  /**
   * Whether the container may commit now. A membership in the middle of a rebalance answers
   * false: the proof of ownership a commit carries (a group generation) may be outdated before
   * the rebalance ends, and the container commits when it has. No commit asks while a revocation
   * is under way (the membership waits in its revoke call, so nothing can change the proof
   * meanwhile). Default: true.
   */
  default boolean mayCommit() {
    return true;
  }

  /**
   * The container found out that it lost all its tasks (its commit was refused because another
   * member owns them) before the membership told it: the membership forgets what it held and
   * rejoins (at its next poll), so that the job and the container agree again. Any thread.
   * Default: nothing.
   */
  default void lostAll() {}

  /**
   * Tasks the container took started only now, after their stores restored beside its other
   * tasks ({@link MembershipListener#assigned} returned before they did): a membership that
   * reports how long taking tasks took counts until now. Any thread. Default: nothing.
   */
  default void tasksStarted(java.util.Set<Integer> tasks) {}

  /**
   * Leaves the job. {@code clean}: the container committed and closed its tasks, and other
   * members may take them at once (a coordinator with static membership may instead keep them
   * for a restart of the same instance). Not clean: the container failed.
   */
  void leave(boolean clean);
}
