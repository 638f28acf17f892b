package io.millrace.samza.serde;

import org.apache.samza.serializers.Serde;

/**
 * Applies a Samza serde where Samza would: to the bytes a system read, and to what a task sends.
 * Where the job names no serde, or a message is not bytes (an in-memory system passes objects),
 * the object passes as it is.
 */
public final class SerdeUse {
  private SerdeUse() {}

  /** The object {@code raw} holds, through {@code serde} if there is one and it is bytes. */
  public static Object read(Serde<Object> serde, Object raw) {
    return serde != null && raw instanceof byte[] bytes ? serde.fromBytes(bytes) : raw;
  }

  /** The bytes of {@code object} through {@code serde}, or the object if there is none. */
  public static Object write(Serde<Object> serde, Object object) {
    return serde == null || object == null ? object : serde.toBytes(object);
  }
}
