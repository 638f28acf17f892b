package io.millrace.api;

/**
 * Sends a task's output messages. Messages are buffered by the output system and are durable once
 * the next commit has completed; a commit waits for every message sent before it.
 *
 * <p>Streams are named by their id in the job's properties ({@code streams.<id>.*}) and must be
 * listed in {@code task.outputs}. The {@link Output} overloads skip the name lookup.
 *
 * <p>A message sent while processing an input message carries that message's timestamp (as in
 * Kafka Streams), unless it is sent with its own; one sent from {@code window}, an end of stream
 * or a scheduled callback has none (-1: on Kafka, the producer's clock). Headers are sent only
 * when given: an input's headers are not copied on their own.
 *
 * <p>An implementation writes the two sends with a timestamp and headers; the others come down to
 * them (the runtime's own collector overrides them all, to keep the common send short).
 */
public interface Collector {
  /**
   * Sends a message; the output system chooses the partition from the key (a {@code null} key
   * goes round-robin).
   *
   * @param stream the id of an output stream listed in {@code task.outputs}
   * @param key the message key, or {@code null}
   * @param value the message value
   * @throws IllegalArgumentException if the stream is not one of the task's outputs
   */
  default void send(String stream, Object key, Object value) {
    send(stream, -1, key, value, -1, Headers.EMPTY);
  }

  /**
   * Sends a message to a given partition.
   *
   * @param stream the id of an output stream listed in {@code task.outputs}
   * @param partition the partition, from 0 to the stream's partition count - 1
   * @param key the message key, or {@code null}
   * @param value the message value
   * @throws IllegalArgumentException if the stream or the partition does not exist
   */
  default void send(String stream, int partition, Object key, Object value) {
    send(stream, partition, key, value, -1, Headers.EMPTY);
  }

  /**
   * Sends a message to an output resolved once with {@link TaskContext#output(String)}.
   *
   * @param stream the output
   * @param key the message key, or {@code null}
   * @param value the message value
   */
  default void send(Output stream, Object key, Object value) {
    send(stream, -1, key, value, -1, Headers.EMPTY);
  }

  /**
   * Sends a message to a given partition of an output resolved with
   * {@link TaskContext#output(String)}.
   */
  default void send(Output stream, int partition, Object key, Object value) {
    send(stream, partition, key, value, -1, Headers.EMPTY);
  }

  /**
   * Sends a message with its own timestamp and headers.
   *
   * @param stream the id of an output stream listed in {@code task.outputs}
   * @param partition the partition, or -1 to let the output system choose from the key
   * @param key the message key, or {@code null}
   * @param value the message value
   * @param timestamp milliseconds since the epoch, or -1 for the input message's timestamp
   * @param headers the headers ({@link Headers#EMPTY} for none); a system without headers (files)
   *     drops them
   * @throws IllegalArgumentException if the stream or the partition does not exist
   */
  void send(String stream, int partition, Object key, Object value, long timestamp,
      Headers headers);

  /** As {@link #send(String, int, Object, Object, long, Headers)}, to a resolved output. */
  void send(Output stream, int partition, Object key, Object value, long timestamp,
      Headers headers);
}
