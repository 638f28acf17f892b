package io.millrace.dsl.runtime;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The prefix of a record key's entries in the stores that keep them by key first (a join side's
 * records, a session's, a sliding window's slices): {@code <key length (4)><key bytes>}. The
 * length keeps one key's entries apart from a longer key that starts with it.
 */
final class KeyPrefix {
  private KeyPrefix() {}

  /** The prefix of {@code recordKey}'s entries. */
  static byte[] of(byte[] recordKey) {
    return ByteBuffer.allocate(Integer.BYTES + recordKey.length).putInt(recordKey.length)
        .put(recordKey).array();
  }

  /**
   * Past every entry of {@code recordKey}: its prefix, incremented (a length's first byte is
   * below 0x80, so some byte is not 0xff).
   */
  static byte[] after(byte[] recordKey) {
    byte[] prefix = of(recordKey);
    for (int i = prefix.length - 1; ; i--) {
      if (prefix[i] != (byte) 0xff) {
        prefix[i]++;
        return Arrays.copyOf(prefix, i + 1);
      }
    }
  }
}
