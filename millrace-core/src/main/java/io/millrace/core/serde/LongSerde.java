package io.millrace.core.serde;

import io.millrace.api.Serde;

/** A long as 8 big-endian bytes (Kafka's LongSerializer layout). */
public final class LongSerde implements Serde<Long> {
  @Override
  public byte[] toBytes(Long object) {
    if (object == null) {
      return null;
    }
    long v = object;
    byte[] bytes = new byte[8];
    for (int i = 7; i >= 0; i--) {
      bytes[i] = (byte) v;
      v >>>= 8;
    }
    return bytes;
  }

  @Override
  public Long fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    if (bytes.length != 8) {
      throw new IllegalArgumentException("a long needs 8 bytes, got " + bytes.length);
    }
    long v = 0;
    for (byte b : bytes) {
      v = (v << 8) | (b & 0xFF);
    }
    return v;
  }
}
