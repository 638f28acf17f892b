package io.millrace.bench.async;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import io.millrace.batching.Batcher;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Batcher benchmark's task: one call to a {@link SlottedService} per message, either directly
 * (a batch of one) or through the task's own {@link Batcher}.
 */
public final class BatchedCallTask implements AsyncStreamTask, InitableTask, ClosableTask {
  static volatile SlottedService service;
  /** 0: call the service once per message; otherwise the Batcher's max size. */
  static volatile int batchSize;
  static volatile Duration linger = Duration.ofMillis(2);
  /** Batches out at once per task; 0: no limit. */
  static volatile int maxInFlight;
  static final LongAdder COMPLETED = new LongAdder();
  static final LongAdder CALLS = new LongAdder();
  private Batcher<Envelope, Boolean> batcher;

  @Override
  public void init(TaskContext context) {
    if (batchSize > 0) {
      SlottedService remote = service;
      Batcher.Builder<Envelope, Boolean> builder =
          Batcher.<Envelope, Boolean>builder((requests, results) -> {
            CALLS.increment();
            remote.call(requests.size(), () -> {
              for (int i = 0; i < requests.size(); i++) {
                results.complete(i, Boolean.TRUE);
              }
            });
          }).maxSize(batchSize).maxLinger(linger);
      if (maxInFlight > 0) {
        builder.maxInFlight(maxInFlight);
      }
      batcher = builder.build();
      context.whenIdle(batcher::flush);
    }
  }

  @Override
  public void processAsync(
      Envelope envelope, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
    if (batcher == null) {
      CALLS.increment();
      service.call(1, () -> {
        COMPLETED.increment();
        callback.complete();
      });
    } else {
      batcher.submit(envelope, (ok, error) -> {
        COMPLETED.increment();
        if (error != null) {
          callback.fail(error);
        } else {
          callback.complete();
        }
      });
    }
  }

  @Override
  public void close() {
    if (batcher != null) {
      batcher.close();
    }
  }
}
