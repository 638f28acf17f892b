package io.millrace.core.loop;

import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.async.BufferedCollector;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One message handed to an asynchronous task (or to a worker thread) and not yet completed: its
 * callback, its held output, its slot in the partition's watermark. The outcome is set once, by a
 * compare-and-set, so a second completion is caught and a late one after a time-out is ignored.
 */
final class PendingMessage implements TaskCallback {
  private static final VarHandle OUTCOME;
  static final Object COMPLETED = new Object();
  static final Object TIMED_OUT = new Object();

  static {
    try {
      OUTCOME = MethodHandles.lookup().findVarHandle(PendingMessage.class, "outcome", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final AsyncDispatcher dispatcher;
  final TaskInstance task;
  final PartitionState partition;
  final long slot;
  final Envelope envelope;
  final BufferedCollector collector;
  final DeferredCoordinator coordinator = new DeferredCoordinator();
  /** Null while running; then COMPLETED, TIMED_OUT or the failure. */
  @SuppressWarnings("unused") // accessed through OUTCOME
  private volatile Object outcome;
  long startNanos;
  /** The dispatcher's time-out list, in dispatch order (loop thread only). */
  PendingMessage previous;
  PendingMessage next;

  PendingMessage(AsyncDispatcher dispatcher, TaskInstance task, PartitionState partition, long slot,
      Envelope envelope) {
    this.dispatcher = dispatcher;
    this.task = task;
    this.partition = partition;
    this.slot = slot;
    this.envelope = envelope;
    this.collector = new BufferedCollector(task.collector, envelope.timestamp());
  }

  @Override
  public void complete() {
    settle(COMPLETED);
  }

  @Override
  public void fail(Throwable error) {
    settle(error == null ? new IllegalStateException("failed with no error given") : error);
  }

  private void settle(Object result) {
    if (OUTCOME.compareAndSet(this, null, result)) {
      dispatcher.completed(this);
      return;
    }
    if (outcome == TIMED_OUT) {
      dispatcher.lateCompletion(this);
      return;
    }
    throw new IllegalStateException("the callback of task " + task.name + " for "
        + envelope.stream() + "/" + envelope.partition() + " offset " + envelope.offset()
        + " was completed twice");
  }

  /** Marks the message timed out unless it already completed; loop thread. */
  boolean timeOut() {
    return OUTCOME.compareAndSet(this, null, TIMED_OUT);
  }

  Object outcome() {
    return outcome;
  }

  /** Commit and shutdown requests made off the loop thread, applied when the message completes. */
  static final class DeferredCoordinator implements TaskCoordinator {
    volatile Scope commit;
    volatile Scope shutdown;

    @Override
    public void commit(Scope scope) {
      commit = scope;
    }

    @Override
    public void shutdown(Scope scope) {
      shutdown = scope;
    }
  }
}
