package io.millrace.core.loop;

/** The loop's time source, injected so that time-dependent behaviour is tested without sleeping. */
@FunctionalInterface
public interface Clock {
  /** The system's monotonic clock. */
  Clock SYSTEM = System::nanoTime;

  /** Monotonic nanoseconds. */
  long nanoTime();
}
