package io.millrace.test;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.async.BufferedCollector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An async task's calls under the driver. A call's sends are held until it completes (the loop,
 * too, writes them only then); then they are captured, or, when the test holds calls, kept until
 * it releases the call. Completions may come from the task's own threads: one lock guards all.
 */
final class AsyncCalls {
  private final CapturedOutputs outputs;
  private final boolean hold;
  private final List<CallImpl> open = new ArrayList<>();
  private TaskFailure failure;

  AsyncCalls(CapturedOutputs outputs, boolean hold) {
    this.outputs = outputs;
    this.hold = hold;
  }

  /** A call the task's processAsync gets: its collector, and its callback. */
  interface Call extends TaskCallback {
    Collector collector();
  }

  synchronized Call begin(Envelope envelope) {
    CallImpl call = new CallImpl(envelope);
    open.add(call);
    return call;
  }

  /** The task threw from processAsync itself: the call never began. */
  synchronized void abandon(Call call) {
    open.remove(call);
  }

  boolean holding() {
    return hold;
  }

  synchronized int inFlight() {
    return open.size();
  }

  synchronized List<TaskTestDriver.Call> held() {
    return List.copyOf(open);
  }

  /** Waits until the task has completed every open call. */
  synchronized void awaitCompleted(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (open.stream().anyMatch(c -> !c.completedByTask())) {
      if (System.nanoTime() >= deadline) {
        long running = open.stream().filter(c -> !c.completedByTask()).count();
        throw new IllegalStateException(running + " async call(s) not completed by the task "
            + "within " + timeoutNanos / 1_000_000 + " ms, the oldest for "
            + open.stream().filter(c -> !c.completedByTask()).findFirst().orElseThrow().envelope);
      }
      long left = deadline - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  synchronized void throwIfFailed() {
    if (failure != null) {
      TaskFailure f = failure;
      failure = null;
      throw f;
    }
  }

  private final class CallImpl implements Call, TaskTestDriver.Call {
    private final Envelope envelope;
    private final BufferedCollector collector;
    private boolean completed;
    private Throwable error;

    CallImpl(Envelope envelope) {
      this.envelope = envelope;
      this.collector = outputs.held(envelope.timestamp());
    }

    @Override
    public Collector collector() {
      return collector;
    }

    @Override
    public Envelope envelope() {
      return envelope;
    }

    @Override
    public boolean completedByTask() {
      synchronized (AsyncCalls.this) {
        return completed;
      }
    }

    @Override
    public void complete() {
      finish(null);
    }

    @Override
    public void fail(Throwable e) {
      finish(e == null ? new IllegalStateException("failed with no error") : e);
    }

    private void finish(Throwable e) {
      synchronized (AsyncCalls.this) {
        if (completed) {
          failure = new TaskFailure("the task completed the call for " + envelope + " twice",
              null);
        } else {
          completed = true;
          error = e;
          if (!hold) {
            apply();
          }
        }
        AsyncCalls.this.notifyAll();
      }
    }

    @Override
    public void release() {
      synchronized (AsyncCalls.this) {
        if (!completed) {
          throw new IllegalStateException("the task has not completed the call for " + envelope
              + " yet");
        }
        if (open.contains(this)) {
          apply();
        }
      }
      throwIfFailed();
    }

    /** Under the lock: the call leaves the open ones; its outputs show, or its failure. */
    private void apply() {
      open.remove(this);
      if (error != null) {
        if (failure == null) {
          failure = new TaskFailure("async call for " + envelope + " failed: " + error, error);
        }
        return;
      }
      try {
        collector.replay();
      } catch (RuntimeException e) { // a partition out of range, say: as the loop fails it
        if (failure == null) {
          failure = new TaskFailure("output could not be sent for async call for " + envelope
              + ": " + e, e);
        }
      }
    }
  }
}
