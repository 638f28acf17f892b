package io.millrace.spi.system;

import io.millrace.api.Envelope;

/**
 * Where a consumer puts what it read, during {@link SystemConsumer#poll}. Owned by the loop
 * thread: call it only from inside {@code poll}.
 *
 * <p>Partitions are named by the dense index the runtime gave them at
 * {@link SystemConsumer#register}; nothing here looks up a partition by a composite key.
 */
public interface BatchSink {
  /**
   * Hands over messages of one partition, in offset order. The sink copies the references, so the
   * consumer may reuse {@code messages} as soon as this returns.
   *
   * @param index the partition's index
   * @param messages the messages
   * @param from the first message in {@code messages}
   * @param count how many messages
   */
  void accept(int index, Envelope[] messages, int from, int count);

  /** Tells the loop that a bounded partition has no more messages after those handed over. */
  void endOfStream(int index);

  /**
   * Tells the loop the partition's upcoming offset (the head), for lag. Only systems whose offsets
   * count messages (offset + 1 is the next message) call it.
   */
  void head(int index, long upcomingOffset);

  /**
   * Tells the loop the consumer's position in a partition: every message before
   * {@code nextOffset} has been handed over. Systems whose offsets can skip (Kafka: compaction,
   * transaction markers) call it, so that a bootstrap partition whose last offset holds no message
   * is still known to be read to its head. Default: ignored.
   */
  default void position(int index, long nextOffset) {}
}
