package io.millrace.core.serde;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.api.Serde;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON through Jackson: to a given class, or to plain maps, lists, strings and numbers when the
 * class is {@code Object}. One shared {@link ObjectMapper}, which is thread-safe once configured.
 */
public final class JsonSerde implements Serde<Object> {
  private static final ObjectMapper MAPPER = new ObjectMapper().findAndRegisterModules();
  private final Class<?> type;

  /** A serde reading JSON into {@code type}. */
  public JsonSerde(Class<?> type) {
    this.type = type;
  }

  @Override
  public byte[] toBytes(Object object) {
    if (object == null) {
      return null;
    }
    try {
      return MAPPER.writeValueAsBytes(object);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + object.getClass().getName() + " as JSON", e);
    }
  }

  @Override
  public Object fromBytes(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return MAPPER.readValue(bytes, type);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "not valid JSON for " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }
}
