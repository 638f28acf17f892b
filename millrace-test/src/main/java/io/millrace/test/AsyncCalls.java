package io.millrace.test;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.async.BufferedCollector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An async task's calls under the driver. A call's sends are held until it completes (the loop,
 * too, writes them only then); then they are captured, or, when the test holds calls, kept until
 * it releases the call. A call applied so is done: it waits in {@link #drainDone} for the test's
 * thread to free its place ({@link CallGate}), as completions wait in the loop's queue for the
 * loop thread. Completions may come from the task's own threads: one lock guards all.
 */
final class AsyncCalls {
  private final CapturedOutputs outputs;
  private final boolean hold;
  private final Runnable afterRelease;
  private final List<CallImpl> open = new ArrayList<>();
  private final List<CallGate.Entry> done = new ArrayList<>();
  /** Calls the task has completed or failed, ever: what a waiting test thread watches. */
  private long finished;
  private TaskFailure failure;

  /**
   * Calls whose outputs go to {@code outputs}; when {@code hold}, a completed call waits for the
   * test's release, after which {@code afterRelease} runs on the test's thread.
   */
  AsyncCalls(CapturedOutputs outputs, boolean hold, Runnable afterRelease) {
    this.outputs = outputs;
    this.hold = hold;
    this.afterRelease = afterRelease;
  }

  /** A call the task's processAsync gets: its collector, and its callback. */
  interface Call extends TaskCallback {
    Collector collector();
  }

  /** A call for {@code entry}, begun at {@code nowMs} on the driver's clock. */
  synchronized Call begin(CallGate.Entry entry, long nowMs) {
    CallImpl call = new CallImpl(entry, nowMs);
    open.add(call);
    return call;
  }

  /**
   * The task threw from processAsync itself (the driver reports it): the call is done with, unless
   * the task completed it before it threw, which stands, as in the loop.
   */
  synchronized void threw(Call call) {
    CallImpl c = (CallImpl) call;
    if (!c.completed) {
      c.completed = true;
      finished++;
      open.remove(c);
      done.add(c.entry);
      notifyAll();
    }
  }

  /**
   * Fails the calls the task has not completed within {@code timeoutMs} of the driver's clock,
   * as the loop fails a message whose callback has not come within {@code
   * task.callback.timeout.ms}: the failure is the driver's to throw, and a callback that comes
   * later changes nothing.
   *
   * @return whether a call timed out
   */
  synchronized boolean timeOut(long nowMs, long timeoutMs) {
    boolean any = false;
    for (CallImpl c : List.copyOf(open)) {
      if (!c.completed && nowMs - c.begunMs >= timeoutMs) {
        c.completed = true;
        c.timedOut = true;
        finished++;
        c.error = new TimeoutException("no callback within "
            + "task.callback.timeout.ms=" + timeoutMs + " (begun at " + c.begunMs
            + " ms on the driver's clock, now " + nowMs + ")");
        c.apply();
        any = true;
      }
    }
    if (any) {
      notifyAll();
    }
    return any;
  }

  /** The calls applied since the last drain, whose places the driver frees. */
  synchronized List<CallGate.Entry> drainDone() {
    if (done.isEmpty()) {
      return List.of();
    }
    List<CallGate.Entry> taken = List.copyOf(done);
    done.clear();
    return taken;
  }

  boolean holding() {
    return hold;
  }

  synchronized int inFlight() {
    return open.size();
  }

  /** Open calls the task has not completed yet. */
  synchronized int running() {
    return (int) open.stream().filter(c -> !c.completed).count();
  }

  synchronized long finished() {
    return finished;
  }

  synchronized List<TaskTestDriver.Call> held() {
    return List.copyOf(open);
  }

  /**
   * Waits until the task completes a call after the {@code seen}-th one, or the deadline passes.
   *
   * @return false if the deadline passed first
   */
  synchronized boolean awaitFinished(long seen, long deadlineNanos) throws InterruptedException {
    while (finished == seen) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** What the oldest call the task has not completed is for, to name it in a time-out. */
  synchronized String oldestRunning() {
    return open.stream().filter(c -> !c.completed).findFirst()
        .map(c -> c.entry.envelope.toString()).orElse("none");
  }

  synchronized boolean failed() {
    return failure != null;
  }

  synchronized void throwIfFailed() {
    if (failure != null) {
      TaskFailure f = failure;
      failure = null;
      throw f;
    }
  }

  private final class CallImpl implements Call, TaskTestDriver.Call {
    private final CallGate.Entry entry;
    private final BufferedCollector collector;
    private final long begunMs;
    private boolean completed;
    /** Failed by its time-out: a callback that comes later is ignored, as the loop does. */
    private boolean timedOut;
    private Throwable error;

    CallImpl(CallGate.Entry entry, long begunMs) {
      this.entry = entry;
      this.begunMs = begunMs;
      this.collector = outputs.held(entry.envelope.timestamp());
    }

    @Override
    public Collector collector() {
      return collector;
    }

    @Override
    public Envelope envelope() {
      return entry.envelope;
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
        if (timedOut) {
          return; // its time-out failed it already: a late callback changes nothing
        }
        if (completed) {
          failure = new TaskFailure("the task completed the call for " + entry.envelope
              + " twice", null);
        } else {
          completed = true;
          finished++;
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
      boolean applied = false;
      synchronized (AsyncCalls.this) {
        if (!completed) {
          throw new IllegalStateException("the task has not completed the call for "
              + entry.envelope + " yet");
        }
        if (open.contains(this)) {
          apply();
          applied = true;
        }
      }
      if (applied) {
        afterRelease.run(); // the records waiting for its place go on, on the test's thread
      }
      throwIfFailed();
    }

    /** Under the lock: the call leaves the open ones; its outputs show, or its failure. */
    private void apply() {
      open.remove(this);
      done.add(entry);
      if (error != null) {
        if (failure == null) {
          failure = new TaskFailure("async call for " + entry.envelope + " failed: " + error,
              error);
        }
        return;
      }
      try {
        collector.replay();
      } catch (RuntimeException e) { // a partition out of range, say: as the loop fails it
        if (failure == null) {
          failure = new TaskFailure("output could not be sent for async call for "
              + entry.envelope + ": " + e, e);
        }
      }
    }
  }
}
