package io.millrace.api;

/**
 * One message read from an input stream, as handed to a task.
 *
 * <p>An envelope is immutable: a task may keep it after {@code process} returns (an async task
 * usually does). The system that read the message creates it; the runtime itself allocates no
 * envelope.
 *
 * <p>{@link #offset()} is the message's position in its partition; its meaning belongs to the
 * system (a Kafka offset, a line's byte position in a file, an index in a memory stream), but it
 * always grows along the partition.
 */
public final class Envelope {
  private final String stream;
  private final int partition;
  private final long offset;
  private final Object key;
  private final Object value;
  private final long timestamp;
  private final int sizeInBytes;
  private final Throwable readError;
  private final Headers headers;

  /**
   * Creates an envelope for a message that was read and deserialized.
   *
   * @param stream the id of the input stream, as named in the job's properties
   * @param partition the partition number within the stream
   * @param offset the message's offset within the partition
   * @param key the deserialized key, or {@code null}
   * @param value the deserialized value, or {@code null}
   * @param timestamp the message's timestamp in milliseconds since the epoch, or -1 if unknown
   * @param sizeInBytes the message's serialized size, counted against the partition buffer's bound
   */
  public Envelope(
      String stream, int partition, long offset, Object key, Object value, long timestamp,
      int sizeInBytes) {
    this(stream, partition, offset, key, value, timestamp, sizeInBytes, null, Headers.EMPTY);
  }

  /**
   * Creates an envelope for a message with headers.
   *
   * @param headers the message's headers ({@link Headers#EMPTY} if it has none)
   */
  public Envelope(
      String stream, int partition, long offset, Object key, Object value, long timestamp,
      int sizeInBytes, Headers headers) {
    this(stream, partition, offset, key, value, timestamp, sizeInBytes, null, headers);
  }

  private Envelope(
      String stream, int partition, long offset, Object key, Object value, long timestamp,
      int sizeInBytes, Throwable readError, Headers headers) {
    this.headers = headers == null ? Headers.EMPTY : headers;
    this.stream = stream;
    this.partition = partition;
    this.offset = offset;
    this.key = key;
    this.value = value;
    this.timestamp = timestamp;
    this.sizeInBytes = sizeInBytes;
    this.readError = readError;
  }

  /**
   * Creates an envelope for a message that could not be read or deserialized. The runtime never
   * hands it to the task: it applies {@code task.error.policy} at this message's offset, so the
   * failure is handled in order with the messages around it.
   *
   * @param rawKey the raw key bytes (or whatever the system had), kept for a dead-letter stream
   * @param rawValue the raw value bytes, kept for a dead-letter stream
   * @param error what went wrong
   */
  public static Envelope unreadable(
      String stream, int partition, long offset, Object rawKey, Object rawValue, long timestamp,
      int sizeInBytes, Throwable error) {
    return unreadable(stream, partition, offset, rawKey, rawValue, timestamp, sizeInBytes, error,
        Headers.EMPTY);
  }

  /**
   * As {@link #unreadable(String, int, long, Object, Object, long, int, Throwable)}, with the
   * message's headers, which a dead letter keeps.
   */
  public static Envelope unreadable(
      String stream, int partition, long offset, Object rawKey, Object rawValue, long timestamp,
      int sizeInBytes, Throwable error, Headers headers) {
    if (error == null) {
      throw new IllegalArgumentException("an unreadable envelope needs the error");
    }
    return new Envelope(stream, partition, offset, rawKey, rawValue, timestamp, sizeInBytes, error,
        headers);
  }

  /** The id of the input stream this message came from. */
  public String stream() {
    return stream;
  }

  /** The partition number within the stream. */
  public int partition() {
    return partition;
  }

  /** The message's offset within its partition. */
  public long offset() {
    return offset;
  }

  /** The deserialized key, or {@code null}. */
  public Object key() {
    return key;
  }

  /** The deserialized value, or {@code null}. */
  public Object value() {
    return value;
  }

  /** The timestamp in milliseconds since the epoch, or -1 when the system has none. */
  public long timestamp() {
    return timestamp;
  }

  /** The message's headers; {@link Headers#EMPTY} if it has none (or its system has none). */
  public Headers headers() {
    return headers;
  }

  /** The message's serialized size in bytes, as the system estimated it. */
  public int sizeInBytes() {
    return sizeInBytes;
  }

  /** Why the message could not be read, or {@code null} for a good message. */
  public Throwable readError() {
    return readError;
  }

  @Override
  public String toString() {
    return stream + "/" + partition + "@" + offset + (readError == null ? "" : " (unreadable)");
  }
}
