package io.millrace.spi.engine;

import java.util.Map;
import java.util.function.Supplier;

/**
 * What the store instances of one container share, so that 100 tasks do not mean 100 caches: an
 * engine keeps its shared parts (a RocksDB block cache and write-buffer manager) here, created on
 * first use and closed after every instance. Thread-safe.
 */
public interface EngineResources {
  /** The job's configuration, for engine-wide keys ({@code stores.<engine>.*}). */
  Map<String, String> jobConfig();

  /**
   * The store instances the container holds, all engines together: what an engine divides a
   * shared budget by to size what each instance takes up front.
   */
  int instances();

  /**
   * The shared resource of that name, created by {@code create} the first time; closed by the
   * runtime after the container's last instance.
   */
  <T extends AutoCloseable> T shared(String name, Supplier<T> create);
}
