package io.millrace.dsl.runtime;

/** Passes records to the processors that follow one. */
final class Forward {
  private Forward() {}

  static void to(Processor[] children, Object key, Object value, long timestamp) {
    for (Processor child : children) {
      child.process(key, value, timestamp);
    }
  }
}
