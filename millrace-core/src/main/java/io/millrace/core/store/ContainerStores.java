package io.millrace.core.store;
import io.millrace.api.store.engine.StorageEngine;
import io.millrace.api.store.engine.CorruptStoreException;

import io.millrace.api.StreamPartition;
import io.millrace.api.store.KeyValueStore;
import io.millrace.api.checkpoint.CheckpointStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stores of one container: every task's instance of every declared store. Opens them (wiping
 * a corrupt or unrestorable local copy), restores them from their changelogs before the tasks
 * start ({@link ChangelogRestorer}), and takes part in each commit:
 *
 * <ol>
 *   <li>{@link #flush}: each store's dirty entries go to its engine and its changelog;
 *   <li>(the container flushes its producers: outputs and changelogs are acknowledged);
 *   <li>{@link #afterProducersFlushed}: engines are synced, each store's local files are marked
 *       with the changelog offset they hold, and the changelog offsets join the checkpoint.
 * </ol>
 *
 * <p>Loop thread only (the restore runs on it before the loop starts).
 */
public final class ContainerStores implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerStores.class);
  private final List<StoreInstance> instances;
  private final List<StoreInstance> logged = new ArrayList<>();
  private final long[] changelogOffsets;
  private final StoreResources resources;
  private final List<Map<String, KeyValueStore<?, ?>>> byTask;
  private final Function<String, ChangelogRestorer> restorers;
  private final EngineSync sync;
  private final StoreFlusher flusher;

  private ContainerStores(List<StoreInstance> instances, StoreResources resources, int tasks,
      Map<StreamPartition, Long> checkpoint, Function<String, ChangelogRestorer> restorers,
      StoreFlusher flusher) {
    this.instances = instances;
    this.flusher = flusher;
    this.restorers = restorers;
    this.resources = resources;
    this.byTask = new ArrayList<>();
    for (int t = 0; t < tasks; t++) {
      byTask.add(new HashMap<>());
    }
    for (StoreInstance instance : instances) {
      byTask.get(instance.taskIndex()).put(instance.spec().name(), instance.store());
      if (instance.changelog() != null) {
        logged.add(instance);
      }
    }
    List<StorageEngine> engines = new ArrayList<>();
    for (StoreInstance instance : instances) {
      engines.add(instance.store().engine());
    }
    sync = new EngineSync(engines, Runtime.getRuntime().availableProcessors());
    changelogOffsets = new long[logged.size()];
    for (int i = 0; i < logged.size(); i++) {
      Long saved = checkpoint.get(logged.get(i).changelogPartition());
      changelogOffsets[i] = saved == null ? CheckpointStore.NONE : saved;
    }
  }

  /** How a task's instance of a store reaches its changelog. */
  public interface Changelogs {
    /** The writer of a store's changelog for a task (the store has one). */
    ChangelogWriter writer(StoreSpec spec, int taskNumber);
  }

  /**
   * Opens every task's instance of every store.
   *
   * @param specs the job's stores
   * @param taskNumbers the container's tasks, by index
   * @param taskNames their names
   * @param storesDir where persistent engines keep their files ({@code <job.state.dir>/stores})
   * @param jobConfig the job's configuration (engine-wide keys)
   * @param checkpoint the job's checkpoint (changelog offsets)
   * @param changelogs how stores reach their changelogs
   * @param restorers a restorer for the changelogs on a system (called at restore time)
   * @param flusher the flusher the stores use; the stores own it from here on
   */
  public static ContainerStores open(List<StoreSpec> specs, int[] taskNumbers,
      String[] taskNames, Path storesDir, Map<String, String> jobConfig,
      Map<StreamPartition, Long> checkpoint, Changelogs changelogs,
      Function<String, ChangelogRestorer> restorers, StoreFlusher flusher) {
    StoreResources resources = new StoreResources(jobConfig,
        specs.size() * taskNumbers.length);
    List<StoreInstance> instances = new ArrayList<>();
    try {
      for (StoreSpec spec : specs) {
        for (int t = 0; t < taskNumbers.length; t++) {
          instances.add(openOne(spec, t, taskNumbers[t], taskNames[t],
              storesDir.resolve(spec.name()).resolve("task-" + taskNumbers[t]), changelogs,
              resources, flusher));
        }
      }
    } catch (RuntimeException e) {
      for (StoreInstance opened : instances) {
        opened.store().engine().close();
      }
      resources.close();
      flusher.close();
      throw e;
    }
    return new ContainerStores(instances, resources, taskNumbers.length, checkpoint, restorers,
        flusher);
  }

  private static StoreInstance openOne(StoreSpec spec, int taskIndex, int taskNumber,
      String taskName, Path dir, Changelogs changelogs, StoreResources resources,
      StoreFlusher flusher) {
    String name = spec.name() + " of " + taskName;
    ChangelogWriter changelog = spec.hasChangelog() ? changelogs.writer(spec, taskNumber) : null;
    long localOffset = LocalOffsetFile.read(dir);
    if (changelog != null && localOffset < 0) {
      // Nothing says what the local files hold: start empty and restore the changelog in full.
      wipe(dir);
    }
    StorageEngine engine;
    try {
      engine = spec.factory().open(spec.engineSpec(), dir, resources);
    } catch (CorruptStoreException e) {
      if (changelog == null) {
        throw new IllegalStateException("store " + name + ": its local files in " + dir
            + " are damaged (" + e.getMessage() + ") and it has no changelog to restore from: "
            + "delete the directory to start it empty, or give it stores." + spec.name()
            + ".changelog", e);
      }
      LOG.warn("store {}: local files in {} are damaged ({}): wiping them and restoring the "
          + "changelog in full", name, dir, e.getMessage());
      wipe(dir);
      localOffset = -1;
      engine = spec.factory().open(spec.engineSpec(), dir, resources);
    }
    if (!engine.persistent()) {
      localOffset = -1;
    }
    CachedStore<?, ?> store = new CachedStore<>(name, spec, engine, changelog, flusher);
    return new StoreInstance(spec, taskIndex, taskNumber, store, dir, changelog, localOffset);
  }

  /** Deletes a store's local directory (a full restore rebuilds it). */
  static void wipe(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot delete store directory " + dir + ": " + e, e);
    }
  }

  /** The stores of the task at {@code taskIndex}, by name. */
  public Map<String, KeyValueStore<?, ?>> storesOf(int taskIndex) {
    return byTask.get(taskIndex);
  }

  /** The changelog partitions, in the order {@link #afterProducersFlushed} fills them. */
  public List<StreamPartition> changelogPartitions() {
    List<StreamPartition> partitions = new ArrayList<>();
    for (StoreInstance instance : logged) {
      partitions.add(instance.changelogPartition());
    }
    return partitions;
  }

  /** The instances with a changelog, for the restore. */
  List<StoreInstance> logged() {
    return logged;
  }

  /** The checkpointed changelog offset of a logged instance, or {@link CheckpointStore#NONE}. */
  long checkpointed(int loggedIndex) {
    return changelogOffsets[loggedIndex];
  }

  /**
   * Restores every store with a changelog, before the tasks start.
   *
   * @return changelog records applied
   */
  public long restore() {
    Map<String, List<Integer>> bySystem = new HashMap<>();
    for (int i = 0; i < logged.size(); i++) {
      bySystem.computeIfAbsent(logged.get(i).spec().changelogSystem(), s -> new ArrayList<>())
          .add(i);
    }
    long applied = 0;
    for (Map.Entry<String, List<Integer>> system : bySystem.entrySet()) {
      applied += restorers.apply(system.getKey()).restore(this, system.getValue());
    }
    return applied;
  }

  /**
   * Commit, step 1: every store's dirty entries to its engine and changelog; returns once every
   * changelog record is in its producer and every write in its engine (the flusher's thread may
   * have been doing both).
   */
  public void flush() {
    for (StoreInstance instance : instances) {
      instance.store().flush();
      instance.store().closeLeakedIterators();
    }
    flusher.drain();
  }

  /**
   * Commit, step 3 (after the producers were flushed): syncs the engines, records in each
   * persistent store's directory the changelog offset its files hold, and writes the changelog
   * offsets into {@code checkpoint} from {@code from} on.
   */
  public void afterProducersFlushed(long[] checkpoint, int from) {
    for (int i = 0; i < logged.size(); i++) {
      long last = logged.get(i).changelog().lastOffset();
      if (last >= 0) {
        changelogOffsets[i] = last;
      }
    }
    sync.syncAll();
    for (int i = 0; i < logged.size(); i++) {
      StoreInstance instance = logged.get(i);
      if (instance.store().engine().persistent() && changelogOffsets[i] != CheckpointStore.NONE) {
        LocalOffsetFile.write(instance.dir(), changelogOffsets[i]);
      }
    }
    System.arraycopy(changelogOffsets, 0, checkpoint, from, changelogOffsets.length);
  }

  /** Closes every store and the shared resources. */
  @Override
  public void close() {
    if (!flusher.stop()) {
      // Its thread is still in an engine (a write that hangs): closing the engines under it would
      // crash the process, so they are left to the process's end.
      LOG.error("the store flusher did not stop within 10 s: store engines left open");
      sync.close();
      return;
    }
    for (StoreInstance instance : instances) {
      try {
        instance.store().close();
      } catch (RuntimeException e) {
        LOG.warn("store {} failed to close", instance.spec().name(), e);
      }
    }
    sync.close();
    resources.close();
  }
}
