package io.millrace.dsl.runtime;

import io.millrace.api.Collector;
import io.millrace.api.TaskCallback;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One input record of an async DSL task on its way: the runtime's callback completes once the
 * pipeline's synchronous part and every {@code mapAsync} call it started (and what followed
 * them) are done, or fails at the first failure. Any thread.
 */
final class AsyncCall {
  private final TaskCallback callback;
  private final Collector collector;
  /** The synchronous part, and each call started and not done. */
  private final AtomicInteger pending = new AtomicInteger(1);
  private final AtomicBoolean finished = new AtomicBoolean();

  AsyncCall(TaskCallback callback, Collector collector) {
    this.callback = callback;
    this.collector = collector;
  }

  /** The record's collector: what the operators after a call send through. */
  Collector collector() {
    return collector;
  }

  /** A call was started. */
  void begin() {
    pending.incrementAndGet();
  }

  /** The synchronous part, or a call and what followed it, is done. */
  void done() {
    if (pending.decrementAndGet() == 0 && finished.compareAndSet(false, true)) {
      callback.complete();
    }
  }

  /** Whether the record has failed or completed: a late call's results are not sent. */
  boolean finished() {
    return finished.get();
  }

  /** The record failed: the task's error policy applies to it (once). */
  void fail(Throwable error) {
    if (finished.compareAndSet(false, true)) {
      callback.fail(error);
    }
  }
}
