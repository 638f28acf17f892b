package io.millrace.spi.coordinator;

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

  /**
   * Where the job's checkpoints are kept when the coordinator keeps them itself, in place of
   * {@code task.checkpoint.system}: a coordinator that fences members which lost their tasks
   * commits checkpoints with the proof of ownership that fencing checks. Default: none.
   */
  default java.util.Optional<io.millrace.spi.checkpoint.CheckpointStore> checkpoints() {
    return java.util.Optional.empty();
  }

  /** Releases what the coordinator holds, after every container left. */
  @Override
  default void close() {}
}
