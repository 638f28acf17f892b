package io.millrace.api;

/**
 * Turns keys and values into bytes and back. Implementations must be thread-safe or stateless:
 * systems may deserialize on their own fetch threads.
 *
 * <p>{@link #fromBytes} should throw (any runtime exception) on bytes it cannot read; the runtime
 * then applies {@code task.error.policy} to that message instead of handing it to the task.
 *
 * @param <T> the type of object
 */
public interface Serde<T> {
  /** Serializes an object; {@code null} stays {@code null}. */
  byte[] toBytes(T object);

  /** Deserializes bytes; {@code null} stays {@code null}. */
  T fromBytes(byte[] bytes);
}
