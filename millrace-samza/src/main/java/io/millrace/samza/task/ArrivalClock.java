package io.millrace.samza.task;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The wall clock Samza envelopes take their arrival time from, read with one volatile load: a
 * daemon thread sets it every millisecond while any adapted task is open. Reading the clock itself
 * per message costs ~20-28 ns on this project's machines (a vDSO call, through JNI for
 * {@code Instant.now()}), as much as Millrace's whole per-message path of a task that does little;
 * Samza's arrival time is in milliseconds, and this one is that of the last tick (it lags the wall
 * clock by at most a tick while its thread gets a core).
 *
 * <p>Threading: {@link #millis} from any thread; {@link #open} and {@link #close} pair up, from
 * any thread (the ticking thread runs from the first open to the last close).
 */
final class ArrivalClock {
  /** The one clock of the process's adapted tasks. */
  static final ArrivalClock SHARED = new ArrivalClock(System::currentTimeMillis, 1_000_000L);

  private final LongSupplier wallClock;
  private final long tickNanos;
  private volatile long millis;
  private int users;
  private Thread ticker;

  /**
   * @param wallClock the clock it follows, in milliseconds since the epoch
   * @param tickNanos how often it reads that clock while open
   */
  ArrivalClock(LongSupplier wallClock, long tickNanos) {
    this.wallClock = wallClock;
    this.tickNanos = tickNanos;
  }

  /** The wall clock at the last tick, in milliseconds since the epoch. */
  long millis() {
    return millis;
  }

  /** One more user: the first starts the ticks (after one read, so it is current at once). */
  synchronized void open() {
    if (users++ == 0) {
      millis = wallClock.getAsLong();
      Thread thread = new Thread(this::tick, "millrace-samza-arrival-clock");
      thread.setDaemon(true);
      thread.start();
      ticker = thread;
    }
  }

  /** One user fewer: the last stops the ticks. */
  synchronized void close() {
    if (users == 0) {
      throw new IllegalStateException("the arrival clock was closed more often than opened");
    }
    if (--users == 0) {
      ticker.interrupt();
      ticker = null;
    }
  }

  /** The thread that ticks, or null while closed (for tests). */
  synchronized Thread ticker() {
    return ticker;
  }

  private void tick() {
    while (!Thread.currentThread().isInterrupted()) {
      LockSupport.parkNanos(this, tickNanos);
      // A thread stopped and replaced may still write once: the wall clock's time, so no harm.
      millis = wallClock.getAsLong();
    }
  }
}
