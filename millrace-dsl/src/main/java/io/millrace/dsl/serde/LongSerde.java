package io.millrace.dsl.serde;

import io.millrace.api.Serde;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Longs as 8 bytes, big-endian. */
public final class LongSerde implements Serde<Long> {
  /** A long in a byte array, big-endian: one 8-byte load or store where a loop took eight. */
  private static final VarHandle BIG_ENDIAN =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  @Override
  public byte[] toBytes(Long object) {
    return object == null ? null : bytes(object);
  }

  @Override
  public Long fromBytes(byte[] bytes) {
    return bytes == null ? null : value(bytes);
  }

  /** A long's 8 bytes, without a box: what {@link #toBytes} writes. */
  public static byte[] bytes(long value) {
    byte[] bytes = new byte[Long.BYTES];
    BIG_ENDIAN.set(bytes, 0, value);
    return bytes;
  }

  /** The long {@link #toBytes} wrote, without a box. */
  public static long value(byte[] bytes) {
    if (bytes.length != Long.BYTES) {
      throw new IllegalArgumentException("a long is 8 bytes, not " + bytes.length);
    }
    return (long) BIG_ENDIAN.get(bytes, 0);
  }
}
