package io.millrace.dsl.serde;

import io.millrace.api.Serde;

/** Bytes as they are. */
public final class BytesSerde implements Serde<byte[]> {
  @Override
  public byte[] toBytes(byte[] object) {
    return object;
  }

  @Override
  public byte[] fromBytes(byte[] bytes) {
    return bytes;
  }
}
