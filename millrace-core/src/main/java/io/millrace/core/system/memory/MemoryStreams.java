package io.millrace.core.system.memory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's in-memory streams, by name. Tests and benchmarks create and read them here; jobs
 * reach them through the {@code memory} system by physical name.
 */
public final class MemoryStreams {
  private static final Map<String, MemoryStream> STREAMS = new ConcurrentHashMap<>();

  private MemoryStreams() {}

  /** Creates a stream, replacing any stream of the same name. */
  public static MemoryStream create(String name, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("a memory stream needs at least one partition: " + name);
    }
    MemoryStream stream = new MemoryStream(name, partitions);
    STREAMS.put(name, stream);
    return stream;
  }

  /** Creates a stream whose envelopes carry {@code envelopeStream} as their stream name. */
  static MemoryStream create(String name, int partitions, String envelopeStream) {
    MemoryStream stream = new MemoryStream(name, partitions, envelopeStream);
    STREAMS.put(name, stream);
    return stream;
  }

  /** The stream of that name, or null. */
  public static MemoryStream get(String name) {
    return STREAMS.get(name);
  }

  /** The stream of that name, created with {@code partitions} if missing. */
  public static MemoryStream getOrCreate(String name, int partitions) {
    return STREAMS.computeIfAbsent(name, n -> new MemoryStream(n, partitions));
  }

  /** Forgets a stream. */
  public static void drop(String name) {
    STREAMS.remove(name);
  }
}
