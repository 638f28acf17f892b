package io.millrace.test;

/**
 * A message the task sent, as the driver captured it.
 *
 * @param stream the output stream's id
 * @param partition the partition the task chose, or -1 when it let the system choose by key
 * @param key the key, or null
 * @param value the value
 * @param timestamp the driver's clock when it was sent, in ms
 */
public record Output(String stream, int partition, Object key, Object value, long timestamp) {}
