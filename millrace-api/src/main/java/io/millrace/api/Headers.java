package io.millrace.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * A message's headers: an ordered list of names with byte values, where a name may repeat (as in
 * Kafka, which carries them). Immutable: {@link #with} returns a new list. A message without
 * headers has {@link #EMPTY}, one shared object, so the common case allocates nothing.
 */
public final class Headers {
  /** No headers. */
  public static final Headers EMPTY = new Headers(new String[0], new byte[0][]);

  private final String[] names;
  private final byte[][] values;

  private Headers(String[] names, byte[][] values) {
    this.names = names;
    this.values = values;
  }

  /** One header. */
  public static Headers of(String name, byte[] value) {
    return EMPTY.with(name, value);
  }

  /** One header with a UTF-8 text value. */
  public static Headers of(String name, String value) {
    return EMPTY.with(name, value);
  }

  /**
   * Headers from parallel arrays (a system's reader builds them so); the arrays are kept, not
   * copied: the caller must not change them.
   */
  public static Headers wrap(String[] names, byte[][] values) {
    if (names.length != values.length) {
      throw new IllegalArgumentException(names.length + " header names but " + values.length
          + " values");
    }
    return names.length == 0 ? EMPTY : new Headers(names, values);
  }

  /** These headers and one more at the end. */
  public Headers with(String name, byte[] value) {
    Objects.requireNonNull(name, "a header needs a name");
    String[] n = Arrays.copyOf(names, names.length + 1);
    byte[][] v = Arrays.copyOf(values, values.length + 1);
    n[names.length] = name;
    v[values.length] = value;
    return new Headers(n, v);
  }

  /** These headers and one more, its value the UTF-8 bytes of {@code value}. */
  public Headers with(String name, String value) {
    return with(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }

  /** How many headers there are. */
  public int size() {
    return names.length;
  }

  /** Whether there are none. */
  public boolean isEmpty() {
    return names.length == 0;
  }

  /** The name of header {@code i}, 0 first. */
  public String name(int i) {
    return names[i];
  }

  /** The value of header {@code i} (may be null). Do not change the array. */
  public byte[] value(int i) {
    return values[i];
  }

  /** The value of the last header named {@code name}, or null if there is none. */
  public byte[] lastValue(String name) {
    for (int i = names.length - 1; i >= 0; i--) {
      if (names[i].equals(name)) {
        return values[i];
      }
    }
    return null;
  }

  /** The last value of {@code name} as UTF-8 text, or null if there is none. */
  public String lastString(String name) {
    byte[] value = lastValue(name);
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  /** Calls {@code action} with each name and value, in order. */
  public void forEach(BiConsumer<String, byte[]> action) {
    for (int i = 0; i < names.length; i++) {
      action.accept(names[i], values[i]);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Headers h && Arrays.equals(names, h.names)
        && Arrays.deepEquals(values, h.values);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(names) + Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < names.length; i++) {
      s.append(i == 0 ? "" : ", ").append(names[i]).append('=')
          .append(values[i] == null ? "null" : new String(values[i], StandardCharsets.UTF_8));
    }
    return s.append(']').toString();
  }
}
