package io.millrace.core.serde;

import io.millrace.api.Serde;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;

/**
 * UTF-8 text. Serializes any object by its {@code toString()} (so a task may send a count as a
 * {@code Long}); rejects bytes that are not valid UTF-8 instead of replacing them silently.
 */
public final class StringSerde implements Serde<Object> {
  @Override
  public byte[] toBytes(Object object) {
    return object == null ? null : object.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      // A fresh decoder per call: decoders are not thread-safe and serdes may run on fetch threads.
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("not valid UTF-8 (" + bytes.length + " bytes)", e);
    }
  }
}
