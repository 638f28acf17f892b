package io.millrace.dsl.runtime;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;

/**
 * The task of a DSL job with a {@code mapAsync} (set as {@code task.class} by the translator, with
 * {@code task.max.concurrency} and {@code task.ordering=key}): the pipeline of {@link DslTask} on
 * the async runtime, each input record done when its calls and what follows them are. Jobs
 * without one run on {@link DslTask}, inline on the loop thread.
 */
public final class DslAsyncTask implements AsyncStreamTask, InitableTask, EndOfStreamListener,
    ClosableTask {
  private PipelineRuntime runtime;

  @Override
  public void init(TaskContext context) {
    runtime = DslTask.start(context);
  }

  @Override
  public void processAsync(Envelope envelope, Collector collector, TaskCoordinator coordinator,
      TaskCallback callback) {
    runtime.processAsync(envelope, collector, callback);
    DslTask.askForACommitIfWanted(runtime, coordinator);
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
