package io.millrace.samza.task;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.WindowableTask;

/**
 * The Millrace task of a Samza job whose task is a Samza {@code AsyncStreamTask}: each message's
 * callback is Millrace's ({@code task.max.concurrency} and {@code task.callback.timeout.ms} keep
 * their Samza meaning), and what the task sends for a message is held with it until its callback
 * completes, as Millrace's async tasks' output is.
 */
public final class SamzaAsyncTaskAdapter
    implements AsyncStreamTask, InitableTask, WindowableTask, EndOfStreamListener, ClosableTask {
  private final AdaptedTask adapted = new AdaptedTask();
  private org.apache.samza.task.AsyncStreamTask task;

  @Override
  public void init(TaskContext context) throws Exception {
    adapted.init(context);
    task = (org.apache.samza.task.AsyncStreamTask) adapted.task();
  }

  @Override
  public void processAsync(Envelope envelope, Collector collector, TaskCoordinator coordinator,
      TaskCallback callback) {
    task.processAsync(adapted.incoming(envelope), adapted.collector(collector),
        adapted.coordinator(coordinator), new SamzaCallback(callback));
  }

  @Override
  public void window(Collector collector, TaskCoordinator coordinator) throws Exception {
    adapted.window(collector, coordinator);
  }

  @Override
  public void onEndOfStream(Collector collector, TaskCoordinator coordinator) throws Exception {
    adapted.endOfStream(collector, coordinator);
  }

  @Override
  public void close() throws Exception {
    adapted.close();
  }
}
