package io.millrace.dsl.runtime;

import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.dsl.config.Applications;
import io.millrace.dsl.config.DslSettings;
import io.millrace.dsl.plan.Plan;
import java.time.Duration;

/**
 * The task of every DSL job: it rebuilds its application's pipeline from the job's
 * {@code dsl.app.class} in {@code init}, checks that it is the plan the job was translated from
 * ({@code dsl.plan.digest}), and runs it. Set as {@code task.class} by the DSL's translator;
 * users never name it.
 */
public final class DslTask implements StreamTask, InitableTask, EndOfStreamListener,
    ClosableTask {
  private PipelineRuntime runtime;

  @Override
  public void init(TaskContext context) {
    runtime = start(context);
  }

  /**
   * A task's pipeline, rebuilt from the job's application and checked against the planned one,
   * with its clock ticking if it has windows: what the sync and the async task start with.
   */
  static PipelineRuntime start(TaskContext context) {
    JobConfig config = JobConfig.of(context.config());
    DslSettings settings = DslSettings.of(config, null);
    String appClass = config.required(DslSettings.TASK_APP_CLASS);
    Plan plan = Applications.describe(DslSettings.TASK_APP_CLASS, appClass,
        Thread.currentThread().getContextClassLoader());
    String expected = config.get(DslSettings.PLAN_DIGEST);
    if (expected != null && !expected.equals(plan.digest())) {
      throw new ConfigException(appClass + " described another pipeline in task "
          + context.taskName() + " than when the job was planned (digest " + plan.digest()
          + ", planned " + expected + "): describe() must build the same pipeline every time, "
          + "without randomness, the clock or outside state. It built:\n" + plan.describe());
    }
    PipelineRuntime runtime = new PipelineRuntime(plan, context, settings);
    if (runtime.hasWindows()) {
      context.scheduleEvery(Duration.ofMillis(runtime.tickMs()), (collector, coordinator) -> {
        runtime.tick(collector);
        askForACommitIfWanted(runtime, coordinator);
      });
    }
    return runtime;
  }

  /** Asks for a commit when closed windows' writes have waited for one long enough. */
  static void askForACommitIfWanted(PipelineRuntime runtime, TaskCoordinator coordinator) {
    if (runtime.commitWanted()) {
      coordinator.commit(TaskCoordinator.Scope.TASK);
    }
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
    runtime.process(envelope, collector);
    askForACommitIfWanted(runtime, coordinator);
  }

  @Override
  public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
    runtime.end(collector);
  }

  /**
   * After the container's final commit: writes what the closed windows held back until their
   * results were acknowledged (the container commits it once every task has closed).
   */
  @Override
  public void close() {
    if (runtime != null) {
      runtime.close();
    }
  }
}
