package io.millrace.core.coordinate;

import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.coordinator.MembershipListener;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * {@code job.coordinator=local}: this process runs every task of the job, task k in container
 * k mod {@code job.container.count}, given at each container's first poll and never moved. No
 * other process is asked: two processes running the same job this way would both run every task.
 */
public final class LocalCoordinator implements JobCoordinator {
  private final int taskCount;
  private final int containerCount;

  /** A coordinator of {@code taskCount} tasks over {@code containerCount} containers. */
  public LocalCoordinator(int taskCount, int containerCount) {
    this.taskCount = taskCount;
    this.containerCount = containerCount;
  }

  /** The tasks of a container: task k runs in container k mod the container count. */
  public Set<Integer> tasksOf(int containerId) {
    Set<Integer> tasks = new LinkedHashSet<>();
    for (int t = containerId; t < taskCount; t += containerCount) {
      tasks.add(t);
    }
    return tasks;
  }

  @Override
  public ContainerMembership join(int containerId, MembershipListener listener) {
    if (containerId < 0 || containerId >= containerCount) {
      // tasksOf would give it tasks of another container: both would run them
      throw new IllegalArgumentException("container " + containerId + " is not one of this "
          + "process's " + containerCount + " containers (job.container.count)");
    }
    return new ContainerMembership() {
      private boolean given;

      @Override
      public void poll() {
        if (!given) {
          given = true;
          listener.assigned(tasksOf(containerId));
        }
      }

      @Override
      public long pollIntervalNanos() {
        return Long.MAX_VALUE; // nothing ever changes after the first poll
      }

      /**
       * No other member can have taken the tasks under this coordinator but a second process of
       * the same job, which fenced this one (exactly-once): this one stops.
       */
      @Override
      public void lostAll() {
        throw new IllegalStateException("container " + containerId + " lost its tasks: its "
            + "commit was refused because it was fenced (another process of this job started "
            + "and took over its transactional id, while this one was paused or cut off) or its "
            + "transaction was aborted by the broker (open past its transaction.timeout.ms). "
            + "Under job.coordinator=local one process runs every task, so this one stops; what "
            + "it sent since its last commit is aborted. Start it again (once the other is gone) "
            + "to resume from the last commit");
      }

      @Override
      public void leave(boolean clean) {}
    };
  }

  /** The factory of {@code job.coordinator=local}. */
  public static final class Factory implements CoordinatorFactory {
    @Override
    public String shortName() {
      return "local";
    }

    @Override
    public Set<String> keys() {
      return Set.of();
    }

    @Override
    public void status(CoordinatorContext context, java.io.PrintStream out) {
      out.println("job " + context.jobName() + " (job.coordinator=local): each process that runs "
          + "it runs all " + context.taskCount() + " task(s) itself; there is no group to show. "
          + "Its metrics (metrics.reporters=jmx or log) show each task's lag");
    }

    @Override
    public JobCoordinator coordinator(CoordinatorContext context) {
      return new LocalCoordinator(context.taskCount(), context.containerCount());
    }
  }
}
