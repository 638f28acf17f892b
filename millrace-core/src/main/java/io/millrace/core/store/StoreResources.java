package io.millrace.core.store;

import io.millrace.spi.engine.EngineResources;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the stores of one container share, created on first use and closed after every store: a
 * RocksDB block cache and write-buffer manager, so 100 tasks do not mean 100 caches. Also carries
 * the job's configuration for engine-wide keys ({@code stores.rocksdb.memory.bytes}).
 */
public final class StoreResources implements EngineResources, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoreResources.class);
  private final Map<String, String> jobConfig;
  private final int instances;
  private final Map<String, AutoCloseable> shared = new LinkedHashMap<>();

  /**
   * Resources for a container of a job with this configuration.
   *
   * @param jobConfig the job's configuration
   * @param instances the store instances the container opens (every store of every task)
   */
  public StoreResources(Map<String, String> jobConfig, int instances) {
    this.jobConfig = jobConfig;
    this.instances = Math.max(1, instances);
  }

  @Override
  public Map<String, String> jobConfig() {
    return jobConfig;
  }

  @Override
  public int instances() {
    return instances;
  }

  @Override
  @SuppressWarnings("unchecked") // each name is created by one engine with one type
  public synchronized <T extends AutoCloseable> T shared(String name, Supplier<T> create) {
    return (T) shared.computeIfAbsent(name, n -> create.get());
  }

  /** Closes the shared resources, newest first. */
  @Override
  public synchronized void close() {
    List<AutoCloseable> all = new ArrayList<>(shared.values());
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        all.get(i).close();
      } catch (Exception e) {
        LOG.warn("a shared store resource failed to close", e);
      }
    }
    shared.clear();
  }
}
