package io.millrace.api.coordinator;

/**
 * Shares a job's tasks among the containers that run it: this process's, and where the coordinator
 * spans several processes, theirs too. One per process.
 */
public interface JobCoordinator extends AutoCloseable {
  /**
   * Joins the job for one container. Called once per container, from its loop thread, when it
   * starts; the membership tells the container its tasks from then on.
   *
   * @param containerId the container's id in this process (0-based)
   * @param listener what the membership calls when the container's tasks change
   */
  ContainerMembership join(int containerId, MembershipListener listener);

  /** Releases what the coordinator holds, after every container left. */
  @Override
  default void close() {}
}
