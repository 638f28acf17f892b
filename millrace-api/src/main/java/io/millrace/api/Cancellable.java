package io.millrace.api;

/** A scheduled callback's handle. */
@FunctionalInterface
public interface Cancellable {
  /** Stops it from running (again); harmless if it already ran or was cancelled. */
  void cancel();
}
