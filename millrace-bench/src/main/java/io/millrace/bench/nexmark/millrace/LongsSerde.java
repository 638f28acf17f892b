package io.millrace.bench.nexmark.millrace;

import io.millrace.api.Serde;
import java.nio.ByteBuffer;

/** Millrace's serde of a {@code long[]} (q4's sum and count): eight bytes a value. */
public final class LongsSerde implements Serde<long[]> {
  @Override
  public byte[] toBytes(long[] values) {
    if (values == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.allocate(8 * values.length);
    for (long v : values) {
      b.putLong(v);
    }
    return b.array();
  }

  @Override
  public long[] fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    long[] values = new long[bytes.length / 8];
    for (int i = 0; i < values.length; i++) {
      values[i] = b.getLong();
    }
    return values;
  }
}
