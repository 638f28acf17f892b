package io.millrace.bench.nexmark.generator;

import java.util.Random;

/** Random strings, prices and the padding that brings events to their average size. */
final class RandomText {
  private RandomText() {}

  /** Lower-case letters and spaces, 3 to {@code maxLength - 1} long, trimmed. */
  static String string(Random random, int maxLength) {
    return exact(random, 3 + random.nextInt(maxLength - 3)).trim();
  }

  /** Exactly {@code length} lower-case letters and spaces (about one in 13 a space). */
  static String exact(Random random, int length) {
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = random.nextInt(13) == 0 ? ' ' : (char) ('a' + random.nextInt(26));
    }
    return new String(chars);
  }

  /**
   * Padding for an event of {@code currentSize} bytes so events average {@code averageSize}:
   * the shortfall, give or take 20%.
   */
  static String extra(Random random, int currentSize, int averageSize) {
    if (currentSize > averageSize) {
      return "";
    }
    int wanted = averageSize - currentSize;
    int delta = (int) Math.round(wanted * 0.2);
    int size = wanted - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
    return exact(random, size);
  }

  /** A price in cents, log-uniform from $1 to $1,000,000 (Beam's). */
  static long price(Random random) {
    return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
  }
}
