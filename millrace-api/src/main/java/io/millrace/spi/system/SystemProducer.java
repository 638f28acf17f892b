package io.millrace.spi.system;

/**
 * Writes output streams of a system for one container.
 *
 * <p>Threading contract: {@link #register}, {@link #start}, {@link #send}, {@link #flush} and
 * {@link #stop} are called by the container's loop thread only, except that a producer whose
 * {@link #concurrentSends} says so also gets {@link #send} calls from the container's changelog
 * thread, between the loop's own calls; {@link #flush} is then called only after those sends. A
 * producer whose {@link #concurrentFlush} says so gets {@link #flush} (and {@link #lastOffset})
 * calls from the container's commit thread too, while the others go on sending.
 */
public interface SystemProducer {
  /**
   * Adds an output stream.
   *
   * @param index the dense index the runtime gave the output; {@link #send} uses it
   * @param stream the stream, with its serdes
   * @param partitionCount the stream's partition count
   */
  void register(int index, StreamSpec stream, int partitionCount);

  /** Opens what the producer needs. */
  void start();

  /**
   * Sends one message. It may be buffered; it must be durable once {@link #flush} returns.
   *
   * @param index the output's index
   * @param partition the partition, or -1 to let the producer choose from the key
   * @param key the key object (the producer serializes it with the stream's key serde)
   * @param value the value object
   * @param timestamp milliseconds since the epoch, or -1
   * @throws IllegalArgumentException if the output has no partition {@code partition}: the
   *     sending message's own error, at once
   */
  void send(int index, int partition, Object key, Object value, long timestamp);

  /**
   * Sends one message with headers. Default: without them, for a system that cannot carry
   * headers (files); a system that can overrides this. Only called with headers to send.
   */
  default void send(int index, int partition, Object key, Object value, long timestamp,
      io.millrace.api.Headers headers) {
    send(index, partition, key, value, timestamp);
  }

  /**
   * Makes every message sent so far durable (written, acknowledged), or throws. A commit calls
   * this before it writes a checkpoint.
   */
  void flush();

  /**
   * The offset of the last message sent with an explicit {@code partition} to that partition of
   * an output and acknowledged, valid after {@link #flush}; -1 if none or if the system does not
   * know offsets. Stores use it to checkpoint how far their changelog goes. Default: -1.
   */
  default long lastOffset(int index, int partition) {
    return -1;
  }

  /**
   * Whether {@link #send} may be called from another thread of the container while the loop
   * thread sends too (never at the same time as {@link #flush}). Stores then hand their
   * changelog records to a thread of their own, off the loop. Default: false.
   */
  default boolean concurrentSends() {
    return false;
  }

  /**
   * Whether {@link #flush} may be called from the container's commit thread while the loop and
   * changelog threads go on sending: it then makes durable every message sent before it was
   * called (later ones may or may not be), and {@link #lastOffset} afterwards covers at least
   * those. A commit under at-least-once then waits for the acknowledgements off the loop thread,
   * and the tasks keep processing through it. Default: false (the loop stops for the flush).
   */
  default boolean concurrentFlush() {
    return false;
  }

  /**
   * The container's transaction this producer sends in, or null (its sends are durable at {@link
   * #flush}, whatever a checkpoint does). Default: null.
   */
  default Transaction transaction() {
    return null;
  }

  /**
   * Drops, where the system can, what was sent since the last commit: a transactional producer
   * aborts its transaction, so no reader that reads committed data ever sees it. The container
   * calls it when it loses every task it had without committing them (it was fenced). Loop
   * thread; never while a send is in progress. Default: nothing (what was sent stays).
   */
  default void abandon() {}

  /** Flushes and releases resources. */
  void stop();
}
