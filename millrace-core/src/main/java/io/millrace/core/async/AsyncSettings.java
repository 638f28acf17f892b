package io.millrace.core.async;

/**
 * How a container runs asynchronous tasks and blocking tasks on worker threads.
 *
 * @param maxConcurrency messages in flight per task ({@code task.max.concurrency})
 * @param ordering which messages may overlap ({@code task.ordering})
 * @param callbackTimeoutNanos fail a message whose callback has not come by then
 * @param poolSize worker threads for synchronous tasks; 0 runs them inline on the loop thread
 * @param poolVirtual use virtual threads for the pool (Java 21+)
 */
public record AsyncSettings(int maxConcurrency, Ordering ordering, long callbackTimeoutNanos,
    int poolSize, boolean poolVirtual) {
  /** The defaults: concurrency 1, partition order, no pool. */
  public static final AsyncSettings DEFAULT =
      new AsyncSettings(1, Ordering.PARTITION, 60_000_000_000L, 0, false);
}
