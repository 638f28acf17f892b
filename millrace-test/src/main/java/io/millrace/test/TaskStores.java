package io.millrace.test;

import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValueStore;
import io.millrace.api.store.engine.StorageEngine;
import io.millrace.core.store.CachedStore;
import io.millrace.core.store.StoreConfig;
import io.millrace.core.store.StoreResources;
import io.millrace.core.store.StoreSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The task's stores, as the job declares them ({@code stores.<name>.*}): the same engine and
 * serdes and the same write-back cache, without a changelog. The files go to a directory of their
 * own, deleted at close unless the test chose it.
 */
final class TaskStores {
  private final Map<String, CachedStore<?, ?>> stores = new LinkedHashMap<>();
  private final StoreResources resources;
  private final Path dir;
  private final boolean temporary;

  private TaskStores(StoreResources resources, Path dir, boolean temporary) {
    this.resources = resources;
    this.dir = dir;
    this.temporary = temporary;
  }

  static TaskStores open(JobConfig config, Path stateDir, int partition) {
    Set<String> systems = new HashSet<>(config.idsUnder("systems"));
    for (String store : StoreConfig.storeNames(config)) {
      String changelog = config.get("stores." + store + ".changelog");
      if (changelog != null && changelog.indexOf('.') > 0) {
        systems.add(changelog.substring(0, changelog.indexOf('.'))); // no changelog is written
      }
    }
    var specs = StoreConfig.parse(config, systems);
    boolean temporary = stateDir == null;
    Path dir = temporary && !specs.isEmpty() ? TaskTestDriver.tempDir() : stateDir;
    TaskStores stores = new TaskStores(new StoreResources(config.asMap(), Math.max(1,
        specs.size())), dir, temporary);
    try {
      for (StoreSpec spec : specs) {
        Path storeDir = dir.resolve(spec.name()).resolve(Integer.toString(partition));
        Files.createDirectories(storeDir);
        StorageEngine engine = spec.factory().open(spec.engineSpec(), storeDir, stores.resources);
        stores.stores.put(spec.name(), new CachedStore<>(spec.name() + " of Partition "
            + partition, spec, engine, null));
      }
    } catch (IOException | RuntimeException e) {
      stores.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
    return stores;
  }

  @SuppressWarnings("unchecked")
  <K, V> KeyValueStore<K, V> get(String name) {
    CachedStore<?, ?> store = stores.get(name);
    if (store == null) {
      throw new IllegalArgumentException("the job declares no store '" + name + "' (it has "
          + stores.keySet() + ")");
    }
    return (KeyValueStore<K, V>) store;
  }

  /** What a commit does to stores: the cache's dirty entries written to the engine. */
  void flush() {
    stores.values().forEach(CachedStore::flush);
  }

  void close() {
    try {
      for (CachedStore<?, ?> store : stores.values()) {
        store.flush();
        store.close();
      }
      stores.clear();
      resources.close();
    } finally {
      if (temporary && dir != null) {
        delete(dir);
      }
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary directory left behind is not the test's failure.
    }
  }
}
