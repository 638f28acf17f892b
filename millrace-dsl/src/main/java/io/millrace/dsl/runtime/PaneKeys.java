package io.millrace.dsl.runtime;

import java.util.Arrays;

/**
 * The keys of a window store: a pane's start, then the record key's bytes.
 *
 * <pre>
 *   0       8                 8 + n
 *   +-------+-----------------+
 *   | start | record key (n)  |     start: big-endian, sign bit flipped
 *   +-------+-----------------+
 * </pre>
 * Flipping the sign bit makes the unsigned byte order of keys (the store's order) the order of
 * pane starts, negative ones included, so a range of keys is a range of time with every key of
 * each pane in it. The empty key (before every pane) holds the operator's own progress.
 */
final class PaneKeys {
  static final byte[] PROGRESS = new byte[0];
  private static final int START = Long.BYTES;

  private PaneKeys() {}

  /** The key of {@code recordKey}'s entry in the pane starting at {@code paneStart}. */
  static byte[] of(long paneStart, byte[] recordKey) {
    byte[] key = new byte[START + recordKey.length]; // one allocation per record
    putStart(key, paneStart);
    System.arraycopy(recordKey, 0, key, START, recordKey.length);
    return key;
  }

  /** The smallest key of the pane starting at {@code paneStart}: a range bound. */
  static byte[] start(long paneStart) {
    byte[] key = new byte[START];
    putStart(key, paneStart);
    return key;
  }

  private static void putStart(byte[] key, long paneStart) {
    long v = paneStart ^ Long.MIN_VALUE;
    for (int i = START - 1; i >= 0; i--) {
      key[i] = (byte) v;
      v >>>= 8;
    }
  }

  /** The pane start of a key made by {@link #of}. */
  static long paneStart(byte[] key) {
    long v = 0;
    for (int i = 0; i < START; i++) {
      v = (v << 8) | (key[i] & 0xff);
    }
    return v ^ Long.MIN_VALUE;
  }

  /** The record key's bytes of a key made by {@link #of}. */
  static byte[] recordKey(byte[] key) {
    return Arrays.copyOfRange(key, START, key.length);
  }

  /** Whether a key is a pane's (not the progress entry). */
  static boolean isPane(byte[] key) {
    return key.length >= START;
  }
}
