package io.millrace.core.testing;

import java.time.Duration;

/** Waits for a condition with a deadline: the tests' one way to wait for another thread. */
public final class Await {
  /**
   * How long a test waits for what takes milliseconds on an idle machine: a deadline sized for a
   * machine whose cores are all busy with something else (it only bounds how long a broken test
   * takes to fail; a test proves behaviour, never speed).
   */
  public static final Duration DEADLINE = Duration.ofMinutes(2);

  private Await() {}

  /** A condition that may throw (an HTTP request, say). */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Returns once {@code condition} holds, checking it every millisecond.
   *
   * @throws AssertionError naming {@code what} if it does not hold within {@code timeout}
   */
  public static void until(Duration timeout, String what, Condition condition) throws Exception {
    until(timeout, Duration.ofMillis(1), what, condition);
  }

  /**
   * Returns once {@code condition} holds, checking it every {@code every}: for a condition that
   * asks a broker or another process (a round trip or more), which checked every millisecond
   * would only take the cores that process needs.
   *
   * @throws AssertionError naming {@code what} if it does not hold within {@code timeout}
   */
  public static void until(Duration timeout, Duration every, String what, Condition condition)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
      }
      Thread.sleep(every.toMillis());
    }
  }
}
