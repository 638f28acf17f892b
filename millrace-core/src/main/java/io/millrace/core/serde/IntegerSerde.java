package io.millrace.core.serde;

import io.millrace.api.Serde;

/** An int as 4 big-endian bytes (Kafka's IntegerSerializer layout). */
public final class IntegerSerde implements Serde<Integer> {
  @Override
  public byte[] toBytes(Integer object) {
    if (object == null) {
      return null;
    }
    int v = object;
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  @Override
  public Integer fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    if (bytes.length != 4) {
      throw new IllegalArgumentException("an integer needs 4 bytes, got " + bytes.length);
    }
    return ((bytes[0] & 0xFF) << 24) | ((bytes[1] & 0xFF) << 16) | ((bytes[2] & 0xFF) << 8)
        | (bytes[3] & 0xFF);
  }
}
