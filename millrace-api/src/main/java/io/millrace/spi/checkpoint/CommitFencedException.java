package io.millrace.spi.checkpoint;

/**
 * A commit was refused because another member of the job owns the container's tasks now (this
 * one was paused or cut off past its session timeout, and the group moved on without it).
 * Nothing of the commit is visible: the container loses its tasks, drops what it wrote since its
 * last commit ({@link io.millrace.spi.system.SystemProducer#abandon}), and its membership
 * decides what follows ({@code ContainerMembership.lostAll}: a group member rejoins; under the
 * local coordinator, where no one else could take the tasks but a process that fenced this one,
 * the container stops).
 */
public final class CommitFencedException extends CheckpointException {
  /** Creates the exception. */
  public CommitFencedException(String message, Throwable cause) {
    super(message, cause);
  }
}
