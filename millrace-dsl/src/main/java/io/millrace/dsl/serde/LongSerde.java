package io.millrace.dsl.serde;

import io.millrace.api.Serde;

/** Longs as 8 bytes, big-endian. */
public final class LongSerde implements Serde<Long> {
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
    long v = value;
    byte[] bytes = new byte[Long.BYTES];
    for (int i = Long.BYTES - 1; i >= 0; i--) {
      bytes[i] = (byte) v;
      v >>>= 8;
    }
    return bytes;
  }

  /** The long {@link #toBytes} wrote, without a box. */
  public static long value(byte[] bytes) {
    if (bytes.length != Long.BYTES) {
      throw new IllegalArgumentException("a long is 8 bytes, not " + bytes.length);
    }
    long v = 0;
    for (byte b : bytes) {
      v = (v << 8) | (b & 0xff);
    }
    return v;
  }
}
