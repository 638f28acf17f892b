package io.millrace.core.testing;

import io.millrace.core.loop.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loop's clock for tests (Kafka's {@code MockTime}): {@link #manual} stands still until the test
 * {@link #advance advances} it, so a time-out or a timer fires when the test says and not when a
 * busy machine happens to be slow; {@link #counting} is the system's clock. Both count their reads:
 * a loop reads its clock once a cycle, so {@link #awaitReads} waits for the loop to go round, which
 * is how a test sees that something did not happen over whole cycles without sleeping on it.
 */
public final class TestClock implements Clock {
  private final boolean manual;
  private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
  private final AtomicLong reads = new AtomicLong();

  private TestClock(boolean manual) {
    this.manual = manual;
  }

  /** A clock that moves only when {@link #advance} moves it. */
  public static TestClock manual() {
    return new TestClock(true);
  }

  /** The system's monotonic clock, its reads counted. */
  public static TestClock counting() {
    return new TestClock(false);
  }

  @Override
  public long nanoTime() {
    reads.incrementAndGet();
    return manual ? now.get() : System.nanoTime();
  }

  /** Moves a manual clock on. */
  public void advance(Duration by) {
    if (!manual) {
      throw new IllegalStateException("the system's clock moves by itself");
    }
    now.addAndGet(by.toNanos());
  }

  /** How often the clock has been read. */
  public long reads() {
    return reads.get();
  }

  /**
   * Returns once the clock has been read {@code more} more times than now (a loop: once it has
   * gone round that many more cycles), waiting at most {@link Await#DEADLINE}.
   */
  public void awaitReads(int more, String what) throws Exception {
    long target = reads.get() + more;
    Await.until(Await.DEADLINE, what, () -> reads.get() >= target);
  }
}
