package io.millrace.spi.coordinator;

import java.util.Set;

/**
 * A kind of coordinator ({@code job.coordinator}): {@code local} is built in; others are found by
 * their {@link #shortName} through {@link java.util.ServiceLoader}.
 *
 * <p>Threading: called from the thread that plans the job.
 */
public interface CoordinatorFactory {
  /** The name a job gives in {@code job.coordinator}, e.g. {@code kafka}. */
  String shortName();

  /**
   * The keys this coordinator accepts after {@code job.coordinator.}, with the {@code .*}
   * convention of system keys; the runtime rejects any other key there, naming it.
   */
  Set<String> keys();

  /**
   * Checks the job against what this coordinator needs (its keys, where the inputs live, their
   * partition counts); throws {@link io.millrace.api.config.ConfigException} naming the key, the
   * stream or the server and what is wrong.
   */
  default void validate(CoordinatorContext context) {}

  /**
   * The commit interval ({@code task.commit.ms}) of a job that does not set one. Default: a
   * minute, for jobs whose commits are only a replay bound.
   */
  default long defaultCommitMs() {
    return 60_000;
  }

  /**
   * Prints what the job's processes are doing now, for {@code bin/millrace status}: its members
   * and their tasks, lag, and last rebalance. Called by the status command, not by a running job.
   * Default: says there is nothing to show.
   */
  default void status(CoordinatorContext context, java.io.PrintStream out) {
    out.println("job " + context.jobName() + " (job.coordinator=" + shortName()
        + "): this coordinator has no status to show");
  }

  /** The coordinator of this process's containers; called once per process. */
  JobCoordinator coordinator(CoordinatorContext context);
}
