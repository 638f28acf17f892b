package io.millrace.api.metrics;

/**
 * A count that only grows. Counters are single-writer: only the thread that owns the metric (a
 * container's loop thread) updates it; any thread may read it. Updating costs a plain add and a
 * cheap ordered write, no lock and no CAS.
 */
public interface Counter {
  /** Adds one. Owner thread only. */
  void inc();

  /** Adds {@code n}. Owner thread only. */
  void inc(long n);

  /** The current count, from any thread. */
  long count();
}
