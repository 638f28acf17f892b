package io.millrace.samza.task;

import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.WindowableTask;

/**
 * The Millrace task of a Samza job whose task is a Samza {@code StreamTask}: the translated job's
 * {@code task.class}. It makes the user's task from the Samza job's keys in {@link #init} and
 * passes each call on in Samza's terms; window, end of stream and close reach the user's task
 * when it implements Samza's interface for them.
 */
public final class SamzaStreamTaskAdapter
    implements StreamTask, InitableTask, WindowableTask, EndOfStreamListener, ClosableTask {
  private final AdaptedTask adapted = new AdaptedTask();
  private org.apache.samza.task.StreamTask task;

  @Override
  public void init(TaskContext context) throws Exception {
    adapted.init(context);
    task = (org.apache.samza.task.StreamTask) adapted.task();
  }

  @Override
  public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
      throws Exception {
    task.process(adapted.incoming(envelope), adapted.collector(collector),
        adapted.coordinator(coordinator));
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
