package io.millrace.test;

import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.store.StoreConfig;
import io.millrace.core.store.StoreFlusher;
import io.millrace.core.store.StoreRegistry;
import io.millrace.core.store.StoreSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The task's stores, as the job declares them ({@code stores.<name>.*}), opened as a container
 * opens them ({@link StoreRegistry}: the same engines, serdes, write-back cache and layout,
 * {@code <dir>/<name>/task-<n>}), without a changelog. The files go to a directory of their own,
 * deleted at close unless the test chose it.
 */
final class TaskStores {
  private final StoreRegistry stores;
  private final Map<String, KeyValueStore<?, ?>> mine;
  private final Path dir;
  private final boolean temporary;

  private TaskStores(StoreRegistry stores, Map<String, KeyValueStore<?, ?>> mine, Path dir,
      boolean temporary) {
    this.stores = stores;
    this.mine = mine;
    this.dir = dir;
    this.temporary = temporary;
  }

  static TaskStores open(JobConfig config, Path stateDir, int partition) {
    Set<String> changelogSystems = new HashSet<>();
    for (String store : StoreConfig.storeNames(config)) {
      String changelog = config.get("stores." + store + ".changelog");
      if (changelog != null && changelog.indexOf('.') > 0) {
        changelogSystems.add(changelog.substring(0, changelog.indexOf('.'))); // not written to
      }
    }
    List<StoreSpec> specs = StoreConfig.parse(config, changelogSystems);
    boolean temporary = stateDir == null;
    Path dir = temporary && !specs.isEmpty() ? tempDir() : stateDir;
    StoreRegistry stores = StoreRegistry.create(specs, dir, config.asMap(), 1,
        (spec, task) -> null, system -> null, StoreFlusher.inline(), false);
    try {
      return new TaskStores(stores, stores.open(partition, "Partition " + partition, Map.of()),
          dir, temporary);
    } catch (RuntimeException e) {
      stores.close();
      delete(temporary ? dir : null);
      throw e;
    }
  }

  @SuppressWarnings("unchecked")
  <K, V> KeyValueStore<K, V> get(String name) {
    KeyValueStore<?, ?> store = mine.get(name);
    if (store == null) {
      throw new IllegalArgumentException("the job declares no store '" + name + "' (it has "
          + mine.keySet() + ")");
    }
    return (KeyValueStore<K, V>) store;
  }

  /** The task's stores by name, for its context. */
  Map<String, KeyValueStore<?, ?>> all() {
    return mine;
  }

  /** What a commit does to stores: the cache's dirty entries written to the engine. */
  void flush() {
    stores.commits().flush();
  }

  void close() {
    try {
      stores.commits().flush();
      stores.close();
    } finally {
      delete(temporary ? dir : null);
    }
  }

  /** A temporary directory for stores, deleted with everything in it at close. */
  private static Path tempDir() {
    try {
      return Files.createTempDirectory("millrace-test-driver");
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a temporary directory for the stores", e);
    }
  }

  private static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A temporary directory left behind is not the test's failure.
    }
  }
}
