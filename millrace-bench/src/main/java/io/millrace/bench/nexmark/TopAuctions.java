package io.millrace.bench.nexmark;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * q5's second step: a window's highest bid count and the auctions that have it, as
 * {@code long[] {count, auction, auction, ...}} (empty: none yet), with its bytes for a store.
 */
public final class TopAuctions {
  private TopAuctions() {}

  /** None yet. */
  public static long[] empty() {
    return new long[0];
  }

  /** {@code top} with {@code auction}'s {@code count} folded in. */
  public static long[] with(long[] top, long auction, long count) {
    if (top.length == 0 || count > top[0]) {
      return new long[] {count, auction};
    }
    if (count < top[0]) {
      return top;
    }
    long[] tied = Arrays.copyOf(top, top.length + 1);
    tied[top.length] = auction;
    return tied;
  }

  /** The result lines of window {@code start}, one per auction, newline-separated. */
  public static String lines(long start, long[] top) {
    StringBuilder s = new StringBuilder();
    for (int i = 1; i < top.length; i++) {
      s.append(i > 1 ? "\n" : "").append(Lines.q5(start, top[i], top[0]));
    }
    return s.toString();
  }

  /** The bytes of {@code top}. */
  public static byte[] encode(long[] top) {
    ByteBuffer b = ByteBuffer.allocate(8 * top.length);
    for (long v : top) {
      b.putLong(v);
    }
    return b.array();
  }

  /** {@code top} from its bytes. */
  public static long[] decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    long[] top = new long[bytes.length / 8];
    for (int i = 0; i < top.length; i++) {
      top[i] = b.getLong();
    }
    return top;
  }
}
