package io.millrace.core.async;

/** Which asynchronous messages of a task may overlap ({@code task.ordering}). */
public enum Ordering {
  /** Messages of a partition may overlap only up to the concurrency (1: strict order). */
  PARTITION,
  /** Messages with the same key never overlap; different keys run in parallel. */
  KEY,
  /** Any order. */
  NONE;

  /** The ordering named in the job's properties. */
  public static Ordering of(String name) {
    return switch (name) {
      case "partition" -> PARTITION;
      case "key" -> KEY;
      case "none" -> NONE;
      default -> throw new IllegalArgumentException(name);
    };
  }
}
