package io.millrace.core.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Hands a container's flushed store changes to their changelog producers. With a thread, batches
 * whose producer takes sends from any thread ({@code SystemProducer.concurrentSends}, Kafka) are
 * sent there, in the order the stores flushed them, while the loop goes on: a Kafka send costs
 * about a microsecond a record, which on the loop thread was 40% of a count job's time. Other
 * batches, and every batch without a thread, are sent on the caller's thread.
 *
 * <p>{@link #drain} (called by the commit before the producers are flushed) returns once every
 * batch handed over is in its producer, or throws the first send failure. Loop thread only, but
 * for the sending thread itself.
 */
public final class ChangelogSender implements AutoCloseable {
  /** Batches queued: a sender that falls behind holds the loop back instead of the heap. */
  private static final int QUEUE = 4;
  private static final Batch STOP = new Batch(null, null, null);
  private final BlockingQueue<Batch> queue;
  private final Thread thread;
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  /** Batches the thread has finished with (sent, or dropped after a failure). */
  private final AtomicLong finished = new AtomicLong();
  /** Batches handed to the thread; loop thread only. */
  private long handed;

  private record Batch(ChangelogWriter writer, List<byte[]> keys, List<byte[]> values) {}

  private ChangelogSender(String threadName) {
    if (threadName == null) {
      queue = null;
      thread = null;
    } else {
      queue = new ArrayBlockingQueue<>(QUEUE);
      thread = new Thread(this::run, threadName);
      thread.setDaemon(true);
    }
  }

  /** A sender that sends every batch on the caller's thread. */
  public static ChangelogSender inline() {
    return new ChangelogSender(null);
  }

  /** A sender with a thread of that name for the producers that allow it. */
  public static ChangelogSender threaded(String threadName) {
    return new ChangelogSender(threadName);
  }

  /** Whether batches may leave the caller's thread. */
  boolean threaded() {
    return thread != null;
  }

  /**
   * Sends one flush's changes of one store instance, now or on the thread. The lists are copied
   * if they leave this thread: the caller may reuse them.
   */
  void send(ChangelogWriter writer, List<byte[]> keys, List<byte[]> values) {
    rethrow();
    if (thread == null || !writer.concurrentSends()) {
      writer.sendNow(keys, values);
      return;
    }
    if (handed == 0 && !thread.isAlive()) {
      thread.start(); // on the first batch: a job without a Kafka changelog never starts it
    }
    try {
      queue.put(new Batch(writer, new ArrayList<>(keys), new ArrayList<>(values)));
      handed++;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing changelog records over", e);
    }
  }

  /** Waits until every batch handed over is in its producer; throws the first failure. */
  public void drain() {
    while (finished.get() < handed) {
      LockSupport.parkNanos(20_000); // a commit's wait: rare, and short next to the flush after it
    }
    rethrow();
  }

  private void run() {
    try {
      for (Batch b = queue.take(); b != STOP; b = queue.take()) {
        try {
          if (failure.get() == null) {
            b.writer.sendNow(b.keys, b.values);
          }
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
        } finally {
          finished.incrementAndGet();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void rethrow() {
    RuntimeException e = failure.get();
    if (e != null) {
      throw e;
    }
  }

  /** Stops the thread once it has sent what it was handed (a commit drained it before). */
  @Override
  public void close() {
    if (thread == null || !thread.isAlive()) {
      return;
    }
    if (!queue.offer(STOP)) {
      thread.interrupt(); // queue full: only after a failure stopped the commit from draining
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
