package io.millrace.dsl.serde;

import io.millrace.api.Serde;
import java.nio.charset.StandardCharsets;

/** Strings as UTF-8. */
public final class StringSerde implements Serde<String> {
  @Override
  public byte[] toBytes(String object) {
    return object == null ? null : object.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String fromBytes(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }
}
