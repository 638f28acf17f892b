package io.millrace.bench.nexmark;

import java.util.concurrent.atomic.LongAdder;

/**
 * Input records the running query has taken in, end markers included: each system's query counts
 * at its sources into this one static counter (all three run in the child JVM that measures
 * them), and the run polls it to time the input from its first record to its last.
 */
public final class InputCounter {
  private static final LongAdder COUNT = new LongAdder();

  private InputCounter() {}

  /** One more record taken in; called by any thread of any system. */
  public static void add() {
    COUNT.increment();
  }

  /** Records taken in so far. */
  public static long get() {
    return COUNT.sum();
  }
}
