package io.millrace.test;

import io.millrace.api.Headers;

/**
 * A message the task sent, as the driver captured it.
 *
 * @param stream the output stream's id
 * @param partition the partition the task chose, or -1 when it let the system choose by key
 * @param key the key, or null
 * @param value the value
 * @param timestamp the timestamp the message carries: the one the task gave, else the input
 *     message's it was sent for, else -1 (sent from a window, say: on Kafka, the producer's clock)
 * @param headers its headers ({@link Headers#EMPTY} if none were given)
 * @param sentAt the driver's clock when it reached the outputs, in ms: when the task sent it, or
 *     for an async call, when the call's outputs were let go (completed, or released when held),
 *     as the run loop holds them until then
 */
public record Output(String stream, int partition, Object key, Object value, long timestamp,
    Headers headers, long sentAt) {}
