package io.millrace.core.store;
import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads that apply restored changelog batches to their stores' engines, so several stores
 * restore at once while the consumer keeps fetching. Each store instance is bound to one lane,
 * which applies its batches in the order they came; a lane's queue is short, so a slow engine
 * holds back the fetching instead of filling the heap.
 *
 * <p>Used by one restoring thread: {@link #apply} and {@link #finish} are not thread-safe. The
 * first failure of any lane stops every lane and is rethrown by the next call.
 */
final class RestoreLanes implements AutoCloseable {
  /** Batches queued per lane: enough to keep the lane busy while the next one is fetched. */
  private static final int QUEUE = 4;
  private static final Batch STOP = new Batch(null, null, null);
  private final Thread[] threads;
  private final List<BlockingQueue<Batch>> queues = new ArrayList<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /** Engine writes, or (engine null) an action to run once the lane's earlier batches are in. */
  private record Batch(StorageEngine engine, List<byte[]> keys, List<byte[]> values,
      Runnable then) {
    Batch(StorageEngine engine, List<byte[]> keys, List<byte[]> values) {
      this(engine, keys, values, null);
    }
  }

  RestoreLanes(int lanes, String name) {
    threads = new Thread[lanes];
    for (int i = 0; i < lanes; i++) {
      BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(QUEUE);
      queues.add(queue);
      threads[i] = new Thread(() -> run(queue), name + "-" + i);
      threads[i].setDaemon(true);
      threads[i].start();
    }
  }

  int lanes() {
    return threads.length;
  }

  private void run(BlockingQueue<Batch> queue) {
    try {
      for (Batch b = queue.take(); b != STOP; b = queue.take()) {
        if (failure.get() == null) {
          if (b.then != null) {
            b.then.run();
          } else {
            b.engine.write(b.keys, b.values);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable t) {
      failure.compareAndSet(null, t);
      // Keep draining so the restoring thread never blocks on a full queue of a dead lane.
      try {
        while (queue.take() != STOP) {
          // dropped: the restore fails
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Queues one batch for {@code lane}; the lists become the lane's (callers pass fresh ones).
   * Blocks while the lane is {@value #QUEUE} batches behind.
   */
  void apply(int lane, StorageEngine engine, List<byte[]> keys, List<byte[]> values)
      throws InterruptedException {
    rethrow();
    queues.get(lane).put(new Batch(engine, keys, values));
  }

  /** Runs {@code action} on {@code lane} once the batches queued on it before are applied. */
  void then(int lane, Runnable action) throws InterruptedException {
    rethrow();
    queues.get(lane).put(new Batch(null, null, null, action));
  }

  /** Waits until every queued batch is applied; throws the first lane's failure. */
  void finish() throws InterruptedException {
    for (BlockingQueue<Batch> queue : queues) {
      queue.put(STOP);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    rethrow();
  }

  private void rethrow() {
    Throwable t = failure.get();
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IllegalStateException(t);
    }
  }

  /** Stops every lane without waiting for queued batches (after a failure elsewhere). */
  @Override
  public void close() {
    for (Thread thread : threads) {
      thread.interrupt();
    }
    for (Thread thread : threads) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
