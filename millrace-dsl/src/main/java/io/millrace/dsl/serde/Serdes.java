package io.millrace.dsl.serde;

import io.millrace.api.Serde;

/**
 * The serdes a pipeline names most often. A serde given to the DSL reaches the runtime by its
 * class name (as {@code streams.<id>.key.serde} and {@code stores.<name>.value.serde} take one),
 * so it must be a public class with a public no-argument constructor; the DSL checks that when
 * it translates the job.
 */
public final class Serdes {
  private Serdes() {}

  /** UTF-8 strings. */
  public static Serde<String> string() {
    return new StringSerde();
  }

  /** 8-byte big-endian longs. */
  public static Serde<Long> longs() {
    return new LongSerde();
  }

  /** 4-byte big-endian integers. */
  public static Serde<Integer> integers() {
    return new IntegerSerde();
  }

  /** Bytes as they are. */
  public static Serde<byte[]> bytes() {
    return new BytesSerde();
  }
}
