package io.millrace.dsl.serde;

import io.millrace.api.Serde;
import java.nio.ByteBuffer;

/** Integers as 4 bytes, big-endian. */
public final class IntegerSerde implements Serde<Integer> {
  @Override
  public byte[] toBytes(Integer object) {
    return object == null ? null : ByteBuffer.allocate(Integer.BYTES).putInt(object).array();
  }

  @Override
  public Integer fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    if (bytes.length != Integer.BYTES) {
      throw new IllegalArgumentException("an integer is 4 bytes, not " + bytes.length);
    }
    return ByteBuffer.wrap(bytes).getInt();
  }
}
