package io.millrace.core.async;

/**
 * How a container runs asynchronous tasks and blocking tasks on worker threads. The run loop's
 * dispatcher and the test driver both take their limits from here, so a test sees the bounds the
 * job runs with.
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

  /**
   * Under key ordering, how many messages a task may hold back behind busy keys, as a multiple of
   * its concurrency: the look-ahead that lets a key whose call just returned find its next
   * message already waiting. With a look-ahead of 1x, a partition whose keys number about its
   * concurrency reaches only ~78% of the Little's-law bound (every key busy stops delivery);
   * with 4x, see docs/benchmarks.md.
   */
  public static final int KEY_LOOKAHEAD = 16;
  /** Watermark ring slots per unit of concurrency: in flight, held back, and completed behind. */
  public static final int RING_PER_CONCURRENCY = KEY_LOOKAHEAD + 4;

  /** Messages a task may hold back behind busy keys before it is fed no more. */
  public int maxParked() {
    return (int) Math.min(Integer.MAX_VALUE, (long) KEY_LOOKAHEAD * maxConcurrency);
  }

  /**
   * Slots of a partition's watermark ring: room for what is in flight and held back, and as much
   * again completed behind a slow message; a full ring stops the partition being fed.
   */
  public int ringCapacity() {
    return RING_PER_CONCURRENCY * maxConcurrency + 16;
  }
}
