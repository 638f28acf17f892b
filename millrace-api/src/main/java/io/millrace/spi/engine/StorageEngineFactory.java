package io.millrace.spi.engine;

import java.nio.file.Path;
import java.util.Set;

/**
 * A kind of storage engine ({@code stores.<name>.factory}): {@code memory} is built in; RocksDB
 * comes with the millrace-rocksdb module, found by its {@link #shortName} through
 * {@link java.util.ServiceLoader} (listed in
 * {@code META-INF/services/io.millrace.spi.engine.StorageEngineFactory}).
 *
 * <p>Threading: {@link #validate} is called from the thread that checks the job; {@link #open}
 * from a container's thread (instances of several containers may open at once).
 */
public interface StorageEngineFactory {
  /** The name a job gives in {@code stores.<name>.factory}, e.g. {@code rocksdb}. */
  String shortName();

  /** Keys this engine accepts after {@code stores.<name>.}, with the {@code .*} convention. */
  Set<String> storeKeys();

  /** Keys this engine accepts after {@code stores.<shortName>.} for all its stores, e.g. memory. */
  default Set<String> engineKeys() {
    return Set.of();
  }

  /**
   * Checks a store's engine keys; throws {@link io.millrace.api.config.ConfigException} naming the
   * key, the value and what is allowed.
   */
  default void validate(EngineSpec spec) {}

  /**
   * Opens (creating if needed) one task's instance of a store.
   *
   * @param spec the store
   * @param dir the instance's own directory (may not exist yet)
   * @param resources what the container's engines share (a block cache, a memory budget)
   * @throws CorruptStoreException if local files exist but cannot be opened
   */
  StorageEngine open(EngineSpec spec, Path dir, EngineResources resources);
}
