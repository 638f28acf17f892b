package io.millrace.core.store;

import io.millrace.api.StreamPartition;
import io.millrace.api.store.KeyValueStore;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.engine.CorruptStoreException;
import io.millrace.spi.engine.StorageEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store instances of one container: every task's instance of every declared store, opened
 * when the container takes the task and closed when it gives the task up. Opens them (wiping a
 * corrupt or unrestorable local copy, or taking a standby copy's engine open), has them restored
 * from their changelogs before their tasks start ({@link ChangelogRestorers}), attaches them to the
 * container's commits ({@link StoreCommitParticipant}) and detaches and closes them.
 *
 * <p>Loop thread, but for a task's instances opened detached ({@link #openDetached}) and
 * restored ({@link #restoreDetached}) on another thread while the container's other tasks run
 * and commit, and only then {@link #attach attached}: until then no commit sees them.
 */
public final class StoreRegistry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoreRegistry.class);
  private final List<StoreSpec> specs;
  private final Path storesDir;
  private final Changelogs changelogs;
  private final StoreResources resources;
  private final ChangelogRestorers restorers;
  private final StoreCommitParticipant commits;
  /** Each attached task's instances, by task number, in the order the tasks were taken. */
  private final Map<Integer, List<StoreInstance>> byTask = new LinkedHashMap<>();
  /**
   * The numbers of the tasks in {@link #byTask}, for {@link #openDetached}'s check on the restore
   * thread, which must not read the loop's map while the loop changes it.
   */
  private final Set<Integer> attachedTasks = ConcurrentHashMap.newKeySet();

  /** How a task's instance of a store reaches its changelog. */
  public interface Changelogs {
    /** The writer of a partition of a store's changelog (the store has one). */
    ChangelogWriter writer(StoreSpec spec, int partition);

    /** The changelog partition of a task's stores: its number unless the job says otherwise. */
    default int partitionOf(int taskNumber) {
      return taskNumber;
    }
  }

  private StoreRegistry(List<StoreSpec> specs, Path storesDir, Changelogs changelogs,
      StoreResources resources, ChangelogRestorers restorers, StoreCommitParticipant commits) {
    this.specs = specs;
    this.storesDir = storesDir;
    this.changelogs = changelogs;
    this.resources = resources;
    this.restorers = restorers;
    this.commits = commits;
  }

  /**
   * The stores of a container, with no task's instances open yet.
   *
   * @param specs the job's stores
   * @param storesDir where persistent engines keep their files ({@code <job.state.dir>/stores})
   * @param jobConfig the job's configuration (engine-wide keys)
   * @param expectedTasks how many tasks the container is expected to hold at once (engines size
   *     their share of a shared memory budget by it)
   * @param changelogs how stores reach their changelogs
   * @param restorers a restorer for the changelogs on a system (called at a system's first
   *     restore; the restorer is kept; the reader it reads through is the process's to close)
   * @param flusher the flusher the stores use; the stores own it from here on
   * @param exactlyOnce whether the job runs under exactly-once: local files then hold only
   *     committed writes
   */
  public static StoreRegistry create(List<StoreSpec> specs, Path storesDir,
      Map<String, String> jobConfig, int expectedTasks, Changelogs changelogs,
      Function<String, ChangelogRestorer> restorers, StoreFlusher flusher,
      boolean exactlyOnce) {
    StoreResources resources = new StoreResources(jobConfig,
        specs.size() * Math.max(1, expectedTasks));
    return new StoreRegistry(specs, storesDir, changelogs, resources,
        new ChangelogRestorers(restorers), new StoreCommitParticipant(flusher, exactlyOnce));
  }

  /** The attached instances' part in the container's commits. */
  public StoreCommitParticipant commits() {
    return commits;
  }

  /**
   * Opens and attaches a task's instance of every store, not restored (the test driver's way;
   * a container opens them detached and restores them first: {@link #openDetached}).
   *
   * @param taskNumber the task's number (its changelog partition: {@link Changelogs#partitionOf})
   * @param taskName its name, for messages
   * @param checkpoint the task's checkpoint (its changelog offsets among them)
   * @return the task's stores by name
   */
  public Map<String, KeyValueStore<?, ?>> open(int taskNumber, String taskName,
      Map<StreamPartition, Long> checkpoint) {
    DetachedStores detached = openDetached(taskNumber, taskName, checkpoint);
    attach(detached);
    return detached.stores();
  }

  /**
   * Opens a task's instance of every store, detached: restore it with {@link #restoreDetached}
   * (any one thread), then {@link #attach} it, or {@link #closeDetached} it. Any one thread at a
   * time (the loop's, or its restore thread while the loop runs other tasks).
   */
  public DetachedStores openDetached(int taskNumber, String taskName,
      Map<StreamPartition, Long> checkpoint) {
    return openDetached(taskNumber, taskName, checkpoint, new HashMap<>());
  }

  /**
   * As {@link #openDetached(int, String, Map)}, taking the engines a standby copy of the task
   * handed over open instead of opening them again ({@link StandbyReplicas#activate}): each one
   * used is removed from {@code handedOver}; any left there stay the caller's to close.
   */
  public DetachedStores openDetached(int taskNumber, String taskName,
      Map<StreamPartition, Long> checkpoint, Map<String, OpenCopy> handedOver) {
    if (attachedTasks.contains(taskNumber)) {
      throw new IllegalStateException("the stores of task " + taskName + " are open already");
    }
    List<StoreInstance> opened = new ArrayList<>();
    try {
      for (StoreSpec spec : specs) {
        opened.add(openOne(spec, taskNumber, taskName,
            StoreFiles.dir(storesDir, spec.name(), taskNumber), handedOver.get(spec.name())));
        handedOver.remove(spec.name()); // (only now: if the open failed, it stays the caller's)
      }
    } catch (RuntimeException e) {
      for (StoreInstance instance : opened) {
        instance.store().engine().close();
      }
      throw e;
    }
    long[] checkpointed = new long[opened.size()];
    for (int i = 0; i < opened.size(); i++) {
      StoreInstance instance = opened.get(i);
      Long saved = instance.changelog() == null ? null
          : checkpoint.get(instance.changelogPartition());
      checkpointed[i] = saved == null ? CheckpointStore.NONE : saved;
    }
    return new DetachedStores(taskNumber, opened, checkpointed);
  }

  private StoreInstance openOne(StoreSpec spec, int taskNumber, String taskName, Path dir,
      OpenCopy handedOver) {
    String name = spec.name() + " of " + taskName;
    StoreFlusher flusher = commits.flusher();
    boolean staged = commits.staged();
    if (handedOver != null) {
      // A standby copy's engine, open: it holds its changelog up to the offset it came with.
      StorageEngine engine = staged ? new StagedEngine(handedOver.engine()) : handedOver.engine();
      int partition = changelogs.partitionOf(taskNumber);
      ChangelogWriter changelog = changelogs.writer(spec, partition);
      CachedStore<?, ?> store = new CachedStore<>(name, spec, engine, changelog, flusher);
      return new StoreInstance(spec, taskNumber, partition, store, dir, changelog,
          handedOver.offset());
    }
    int partition = changelogs.partitionOf(taskNumber);
    ChangelogWriter changelog = spec.hasChangelog() ? changelogs.writer(spec, partition) : null;
    long localOffset = LocalOffsetFile.read(dir);
    if (changelog != null && localOffset < 0) {
      // Nothing says what the local files hold: start empty and restore the changelog in full.
      StoreFiles.wipe(dir);
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
      StoreFiles.wipe(dir);
      localOffset = -1;
      engine = spec.factory().open(spec.engineSpec(), dir, resources);
    }
    if (!engine.persistent()) {
      localOffset = -1;
    } else if (staged) {
      engine = new StagedEngine(engine);
    }
    CachedStore<?, ?> store = new CachedStore<>(name, spec, engine, changelog, flusher);
    return new StoreInstance(spec, taskNumber, partition, store, dir, changelog, localOffset);
  }

  /**
   * Restores detached instances from their changelogs ({@link ChangelogRestorers#restore}). The
   * thread that owns the process's changelog readers (its state updater's); stops early once
   * {@code cancelled} says so; {@code taskRestored} hears of each task
   * as soon as all of its stores are restored.
   *
   * @return changelog records applied
   */
  public long restoreDetached(List<DetachedStores> tasks, BooleanSupplier cancelled,
      IntConsumer taskRestored) {
    return restorers.restore(tasks, cancelled, taskRestored);
  }

  /** Attaches a task's instances: from now on commits flush and checkpoint them. Loop thread. */
  public void attach(DetachedStores detached) {
    if (byTask.containsKey(detached.taskNumber())) {
      throw new IllegalStateException("the stores of task " + detached.taskNumber()
          + " are open already");
    }
    commits.add(detached.taskNumber(), detached.instances(), detached.checkpointed());
    byTask.put(detached.taskNumber(), detached.instances());
    attachedTasks.add(detached.taskNumber());
  }

  /**
   * Closes instances that were never attached (their task left while they restored): nothing
   * wrote to them but the restore, whose records the changelog holds, so their files keep their
   * mark.
   */
  public void closeDetached(DetachedStores detached) {
    closeAll(detached.taskNumber(), detached.instances());
  }

  /**
   * Detaches a task's instances from the commits and closes them: the checkpoint layout no
   * longer holds their changelogs. {@code committed}: a commit flushed them. Not committed (the
   * task was lost): their local files may hold writes no checkpoint has, so whoever opens them
   * next here restores them in full (see {@link StoreCommitParticipant#remove}). Loop thread.
   */
  public void closeTask(int taskNumber, boolean committed) {
    List<StoreInstance> instances = byTask.remove(taskNumber);
    attachedTasks.remove(taskNumber);
    if (instances == null) {
      return;
    }
    commits.remove(taskNumber, committed);
    closeAll(taskNumber, instances);
  }

  private static void closeAll(int taskNumber, List<StoreInstance> instances) {
    for (StoreInstance instance : instances) {
      try {
        instance.store().close();
      } catch (RuntimeException e) {
        LOG.warn("store {} of task {} failed to close", instance.spec().name(), taskNumber, e);
      }
    }
  }

  /**
   * What this process holds on local disk: for each task with local files of a store that has a
   * changelog, the changelog offset those files hold (store name -> offset). Read from the files
   * each time: another container of the process may have written them.
   */
  public Map<Integer, Map<String, Long>> localState() {
    Map<Integer, Map<String, Long>> state = new TreeMap<>();
    for (StoreSpec spec : specs) {
      Path dir = storesDir.resolve(spec.name());
      if (!spec.hasChangelog() || !Files.isDirectory(dir)) {
        continue;
      }
      try (var tasks = Files.newDirectoryStream(dir, "task-*")) {
        for (Path taskDir : tasks) {
          long offset = LocalOffsetFile.read(taskDir);
          if (offset >= 0) {
            int task = Integer.parseInt(taskDir.getFileName().toString().substring(5));
            state.computeIfAbsent(task, t -> new TreeMap<>()).put(spec.name(), offset);
          }
        }
      } catch (IOException | NumberFormatException e) {
        LOG.warn("cannot list the local files of store {} in {}: {}", spec.name(), dir,
            e.toString());
      }
    }
    return state;
  }

  /** Closes every store and the shared resources. */
  @Override
  public void close() {
    if (!commits.stop()) {
      return; // the engines are left to the process's end (StoreCommitParticipant#stop says why)
    }
    for (Map.Entry<Integer, List<StoreInstance>> task : byTask.entrySet()) {
      closeAll(task.getKey(), task.getValue());
    }
    byTask.clear();
    attachedTasks.clear();
    commits.close();
    resources.close();
  }
}
