package io.millrace.dsl.serde;

import io.millrace.api.Serde;
import java.nio.ByteBuffer;

/** Longs as 8 bytes, big-endian. */
public final class LongSerde implements Serde<Long> {
  @Override
  public byte[] toBytes(Long object) {
    return object == null ? null : ByteBuffer.allocate(Long.BYTES).putLong(object).array();
  }

  @Override
  public Long fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    if (bytes.length != Long.BYTES) {
      throw new IllegalArgumentException("a long is 8 bytes, not " + bytes.length);
    }
    return ByteBuffer.wrap(bytes).getLong();
  }
}
