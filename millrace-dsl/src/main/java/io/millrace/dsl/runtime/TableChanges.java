package io.millrace.dsl.runtime;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes a re-grouped table's change crosses its repartition as: a kind byte, then the
 * value(s) as the group's value serde wrote them. {@link #ADD} and {@link #SUBTRACT} carry one
 * value; {@link #REPLACE} (a key whose new pair stays in the same group) carries the old value's
 * length (4 bytes, big-endian), the old value and the new one, so the group's aggregate is
 * updated once, not passed on twice.
 */
final class TableChanges {
  static final byte ADD = 1;
  static final byte SUBTRACT = 2;
  static final byte REPLACE = 3;

  private TableChanges() {}

  /** An added or subtracted value. */
  static byte[] one(byte kind, byte[] value) {
    byte[] change = new byte[1 + value.length];
    change[0] = kind;
    System.arraycopy(value, 0, change, 1, value.length);
    return change;
  }

  /** A value replaced by another in the same group. */
  static byte[] replace(byte[] old, byte[] value) {
    return ByteBuffer.allocate(1 + 4 + old.length + value.length).put(REPLACE)
        .putInt(old.length).put(old).put(value).array();
  }

  /**
   * The change's kind.
   *
   * @throws IllegalArgumentException if the bytes are no change
   */
  static byte kind(byte[] change) {
    if (change == null || change.length == 0 || change[0] < ADD || change[0] > REPLACE) {
      throw new IllegalArgumentException("not a table change: "
          + (change == null ? "null" : change.length == 0 ? "no bytes"
          : "kind byte " + change[0] + " of " + change.length + " bytes"));
    }
    return change[0];
  }

  /** The value an {@link #ADD} or {@link #SUBTRACT} carries, or a replace's new value. */
  static byte[] value(byte[] change) {
    return kind(change) == REPLACE ? Arrays.copyOfRange(change, 5 + oldLength(change),
        change.length) : Arrays.copyOfRange(change, 1, change.length);
  }

  /** A {@link #REPLACE}'s old value. */
  static byte[] old(byte[] change) {
    return Arrays.copyOfRange(change, 5, 5 + oldLength(change));
  }

  private static int oldLength(byte[] change) {
    if (change.length < 5) {
      throw new IllegalArgumentException("a table change of " + change.length
          + " bytes is too short for a replace (a kind byte and a 4-byte length first)");
    }
    int length = ByteBuffer.wrap(change, 1, 4).getInt();
    if (length < 0 || 5 + length > change.length) {
      throw new IllegalArgumentException("a table change of " + change.length
          + " bytes says its old value has " + length);
    }
    return length;
  }
}
