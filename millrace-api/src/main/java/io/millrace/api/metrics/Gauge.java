package io.millrace.api.metrics;

/** A value read when a reporter asks for it (a queue depth, a lag). */
@FunctionalInterface
public interface Gauge {
  /** The current value; called from reporter threads, so it must be safe to call from any. */
  long value();
}
