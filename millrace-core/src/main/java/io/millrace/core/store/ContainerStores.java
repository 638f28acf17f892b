package io.millrace.core.store;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.commit.CommitParticipant;
import io.millrace.spi.engine.CorruptStoreException;
import io.millrace.spi.engine.StorageEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stores of one container: every task's instance of every declared store, opened when the
 * container takes the task and closed when it gives the task up. Opens them (wiping a corrupt or
 * unrestorable local copy), restores them from their changelogs before their tasks start
 * ({@link ChangelogRestorer}), and takes part in each commit:
 *
 * <ol>
 *   <li>{@link #handOver}: each store's dirty entries go to its engine and its changelog;
 *   <li>(the container flushes its producers: outputs and changelogs are acknowledged);
 *   <li>{@link #beforeCheckpoint}: engines are synced, and the changelog offsets join the
 *       checkpoint;
 *   <li>(the checkpoint is written);
 *   <li>{@link #afterCheckpoint}: each store's local files are marked with the changelog offset
 *       they hold, which the checkpoint now holds too.
 * </ol>
 *
 * <p>Loop thread only, but for two things: a task's instances may be opened detached ({@link
 * #openDetached}) and restored ({@link #restoreDetached}) on another thread while the container's
 * other tasks run and commit, and only then {@link #attach attached}: until then no commit sees
 * them. And a commit in the background waits for the flusher, reads the changelog offsets and
 * syncs the engines on its own thread ({@link #awaitHandedOver}, {@link
 * #beforeCheckpoint}), on the {@link Snapshot} it began with, while the
 * loop goes on; the loop closes no instance until that commit is over.
 *
 * <p><b>Size.</b> Past 500 lines because it still holds two jobs, the stores' life (open,
 * attach, restore, close) and their part in commits ({@link CommitParticipant}); the split into a
 * registry and a commit participant is the state updater's step (issue 31).
 */
public final class ContainerStores implements CommitParticipant, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerStores.class);
  private final List<StoreSpec> specs;
  private final Path storesDir;
  private final Changelogs changelogs;
  private final StoreResources resources;
  private final Function<String, ChangelogRestorer> restorers;
  /** Each system's restorer, made at its first restore and kept (with its consumer) till close. */
  private final Map<String, ChangelogRestorer> restorerBySystem = new ConcurrentHashMap<>();
  private final StoreFlusher flusher;
  private final EngineSync sync;
  /**
   * Exactly-once: persistent engines stage their writes ({@link StagedEngine}) until the commit's
   * transaction committed, and are synced (the staged writes applied) only then.
   */
  private final boolean staged;
  /**
   * Exactly-once: how often, at most, a commit also syncs the engines and marks their files with
   * the changelog offset they hold. Each commit applies its staged writes (committed ones only),
   * so the files hold a committed state whenever they are flushed; the mark only bounds what a
   * crash replays. Every commit (100 ms) would flush RocksDB's memtables into a tiny file each
   * time.
   */
  static final long MARK_INTERVAL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
  /** When the files were last marked (the thread that applies commits' writes). */
  private long lastMarkNanos = Long.MIN_VALUE;
  /**
   * Exactly-once: the last commit's sealed writes being applied (and the files marked), on the
   * commit's thread; whatever seals, syncs, marks or closes next waits for it first.
   */
  private volatile CompletableFuture<Void> applying = CompletableFuture.completedFuture(null);
  /** Each open task's instances, by task number, in the order the tasks were taken. */
  private final Map<Integer, List<StoreInstance>> byTask = new LinkedHashMap<>();
  /**
   * The numbers of the tasks in {@link #byTask}, for {@link #openDetached}'s check on the restore
   * thread, which must not read the loop's map while the loop changes it.
   */
  private final Set<Integer> attachedTasks = ConcurrentHashMap.newKeySet();
  /** The instances with a changelog, in checkpoint order. */
  private final List<Logged> logged = new ArrayList<>();
  /** What the next commit sees; null once the stores changed (loop thread). */
  private Snapshot snapshot;

  /** An instance with a changelog, and what the commit protocol keeps for it. */
  private static final class Logged {
    final StoreInstance instance;
    /** The changelog offset it reached: the checkpoint's, then what each commit adds. */
    long offset;
    /** Exactly-once: the offset its engine holds, as of the last commit. */
    long applied = CheckpointStore.NONE;
    /** Exactly-once: whether its files were marked since it opened. */
    boolean marked;

    Logged(StoreInstance instance, long offset) {
      this.instance = instance;
      this.offset = offset;
    }

    boolean persistent() {
      return instance.store().engine().persistent();
    }
  }

  private ContainerStores(List<StoreSpec> specs, Path storesDir, Changelogs changelogs,
      StoreResources resources, Function<String, ChangelogRestorer> restorers,
      StoreFlusher flusher, boolean staged) {
    this.staged = staged;
    this.specs = specs;
    this.storesDir = storesDir;
    this.changelogs = changelogs;
    this.resources = resources;
    this.restorers = restorers;
    this.flusher = flusher;
    this.sync = new EngineSync(List.of(), Runtime.getRuntime().availableProcessors());
  }

  /** How a task's instance of a store reaches its changelog. */
  public interface Changelogs {
    /** The writer of a store's changelog for a task (the store has one). */
    ChangelogWriter writer(StoreSpec spec, int taskNumber);
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
   *     restore; the restorer is kept and closed with the stores)
   * @param flusher the flusher the stores use; the stores own it from here on
   * @param exactlyOnce whether the job runs under exactly-once: local files then hold only
   *     committed writes
   */
  public static ContainerStores create(List<StoreSpec> specs, Path storesDir,
      Map<String, String> jobConfig, int expectedTasks, Changelogs changelogs,
      Function<String, ChangelogRestorer> restorers, StoreFlusher flusher,
      boolean exactlyOnce) {
    StoreResources resources = new StoreResources(jobConfig,
        specs.size() * Math.max(1, expectedTasks));
    return new ContainerStores(specs, storesDir, changelogs, resources, restorers, flusher,
        exactlyOnce);
  }

  /**
   * A task's instances, opened but not attached: no commit sees them yet.
   *
   * @param taskNumber the task's number
   * @param instances its instance of every store
   * @param checkpointed per instance, its changelog offset in the checkpoint (or NONE, or no
   *     changelog)
   */
  public record Detached(int taskNumber, List<StoreInstance> instances, long[] checkpointed) {
    /** The task's stores by name. */
    public Map<String, KeyValueStore<?, ?>> stores() {
      Map<String, KeyValueStore<?, ?>> stores = new HashMap<>();
      for (StoreInstance instance : instances) {
        stores.put(instance.spec().name(), instance.store());
      }
      return stores;
    }
  }

  /**
   * Opens and attaches a task's instance of every store, not restored (the test driver's way;
   * a container opens them detached and restores them first: {@link #openDetached}).
   *
   * @param taskNumber the task's number (its changelog partition)
   * @param taskName its name, for messages
   * @param checkpoint the task's checkpoint (its changelog offsets among them)
   * @return the task's stores by name
   */
  public Map<String, KeyValueStore<?, ?>> open(int taskNumber, String taskName,
      Map<StreamPartition, Long> checkpoint) {
    Detached detached = openDetached(taskNumber, taskName, checkpoint);
    attach(detached);
    return detached.stores();
  }

  /**
   * Opens a task's instance of every store, detached: restore it with {@link #restoreDetached}
   * (any one thread), then {@link #attach} it, or {@link #closeDetached} it. Any one thread at a
   * time (the loop's, or its restore thread while the loop runs other tasks).
   */
  public Detached openDetached(int taskNumber, String taskName,
      Map<StreamPartition, Long> checkpoint) {
    return openDetached(taskNumber, taskName, checkpoint, new HashMap<>());
  }

  /**
   * As {@link #openDetached(int, String, Map)}, taking the engines a standby copy of the task
   * handed over open instead of opening them again ({@link StandbyReplicas#activate}): each one
   * used is removed from {@code handedOver}; any left there stay the caller's to close.
   */
  public Detached openDetached(int taskNumber, String taskName,
      Map<StreamPartition, Long> checkpoint, Map<String, StandbyReplicas.OpenCopy> handedOver) {
    if (attachedTasks.contains(taskNumber)) {
      throw new IllegalStateException("the stores of task " + taskName + " are open already");
    }
    List<StoreInstance> opened = new ArrayList<>();
    try {
      for (StoreSpec spec : specs) {
        opened.add(openOne(spec, taskNumber, taskName,
            storesDir.resolve(spec.name()).resolve("task-" + taskNumber),
            handedOver.get(spec.name())));
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
    return new Detached(taskNumber, opened, checkpointed);
  }

  /** Attaches a task's instances: from now on commits flush and checkpoint them. Loop thread. */
  public void attach(Detached detached) {
    if (byTask.containsKey(detached.taskNumber())) {
      throw new IllegalStateException("the stores of task " + detached.taskNumber()
          + " are open already");
    }
    for (int i = 0; i < detached.instances().size(); i++) {
      StoreInstance instance = detached.instances().get(i);
      if (instance.changelog() != null) {
        logged.add(new Logged(instance, detached.checkpointed()[i]));
      }
    }
    byTask.put(detached.taskNumber(), detached.instances());
    attachedTasks.add(detached.taskNumber());
    sync.update(engines());
    snapshot = null;
  }

  /**
   * Closes instances that were never attached (their task left while they restored): nothing
   * wrote to them but the restore, whose records the changelog holds, so their files keep their
   * mark.
   */
  public void closeDetached(Detached detached) {
    for (StoreInstance instance : detached.instances()) {
      try {
        instance.store().close();
      } catch (RuntimeException e) {
        LOG.warn("store {} of task {} failed to close", instance.spec().name(),
            detached.taskNumber(), e);
      }
    }
  }

  /**
   * Restores detached instances from their changelogs: each system's with a restorer of its own,
   * the systems at once. Any one thread (the instances are no other thread's until attached);
   * stops early once {@code cancelled} says so. {@code taskRestored} hears of each task as soon
   * as all of its stores are restored (from a restoring thread), so it can start before the
   * others; a task without changelogs, at once.
   *
   * @return changelog records applied
   */
  public long restoreDetached(List<Detached> tasks, BooleanSupplier cancelled,
      IntConsumer taskRestored) {
    Map<String, List<StoreInstance>> bySystem = new LinkedHashMap<>();
    Map<String, List<Long>> checkpointed = new HashMap<>();
    Map<Integer, AtomicInteger> toGo = new HashMap<>();
    List<Integer> ready = new ArrayList<>();
    for (Detached d : tasks) {
      int logged = 0;
      for (int i = 0; i < d.instances().size(); i++) {
        StoreInstance instance = d.instances().get(i);
        if (instance.changelog() != null) {
          String system = instance.spec().changelogSystem();
          bySystem.computeIfAbsent(system, s -> new ArrayList<>()).add(instance);
          checkpointed.computeIfAbsent(system, s -> new ArrayList<>()).add(d.checkpointed()[i]);
          logged++;
        }
      }
      if (logged == 0) {
        ready.add(d.taskNumber());
      } else {
        toGo.put(d.taskNumber(), new AtomicInteger(logged));
      }
    }
    ready.forEach(taskRestored::accept);
    Consumer<StoreInstance> restored = instance -> {
      if (toGo.get(instance.taskNumber()).decrementAndGet() == 0) {
        taskRestored.accept(instance.taskNumber());
      }
    };
    return restoreBySystem(bySystem, checkpointed, cancelled, restored);
  }

  private StoreInstance openOne(StoreSpec spec, int taskNumber, String taskName, Path dir,
      StandbyReplicas.OpenCopy handedOver) {
    String name = spec.name() + " of " + taskName;
    if (handedOver != null) {
      // A standby copy's engine, open: it holds its changelog up to the offset it came with.
      StorageEngine engine = staged ? new StagedEngine(handedOver.engine()) : handedOver.engine();
      ChangelogWriter changelog = changelogs.writer(spec, taskNumber);
      CachedStore<?, ?> store = new CachedStore<>(name, spec, engine, changelog, flusher);
      return new StoreInstance(spec, taskNumber, store, dir, changelog, handedOver.offset());
    }
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
    } else if (staged) {
      engine = new StagedEngine(engine);
    }
    CachedStore<?, ?> store = new CachedStore<>(name, spec, engine, changelog, flusher);
    return new StoreInstance(spec, taskNumber, store, dir, changelog, localOffset);
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

  /** The changelog partitions, in the order {@link #beforeCheckpoint} fills them. */
  public List<StreamPartition> changelogPartitions() {
    List<StreamPartition> partitions = new ArrayList<>();
    for (Logged l : logged) {
      partitions.add(l.instance.changelogPartition());
    }
    return partitions;
  }

  /**
   * One restorer per system, each with its own consumer, the systems at once: the first on the
   * calling thread, any other on a thread of its own, so a store on a slow system does not hold
   * up the others. The first failure stops the others at their next batch and is rethrown once
   * all have ended.
   */
  private long restoreBySystem(Map<String, List<StoreInstance>> bySystem,
      Map<String, List<Long>> checkpointed, BooleanSupplier cancelled,
      Consumer<StoreInstance> restored) {
    AtomicBoolean failed = new AtomicBoolean();
    BooleanSupplier stop = () -> failed.get() || cancelled.getAsBoolean();
    List<String> systems = new ArrayList<>(bySystem.keySet());
    List<CompletableFuture<Long>> others = new ArrayList<>();
    Map<String, ChangelogRestorer> restorer = new HashMap<>();
    for (String system : systems) {
      restorer.put(system, restorerBySystem.computeIfAbsent(system, restorers));
    }
    for (String system : systems.subList(Math.min(1, systems.size()), systems.size())) {
      Executor ownThread = runnable -> {
        Thread t = new Thread(runnable, "millrace-restore-" + system);
        t.setDaemon(true);
        t.start();
      };
      others.add(CompletableFuture.supplyAsync(() -> restorer.get(system).restore(
          bySystem.get(system), offsets(checkpointed.get(system)), stop, restored),
          ownThread)
          .whenComplete((applied, e) -> {
            if (e != null) {
              failed.set(true);
            }
          }));
    }
    long applied = 0;
    RuntimeException failure = null;
    if (!systems.isEmpty()) {
      String first = systems.get(0);
      try {
        applied += restorer.get(first).restore(bySystem.get(first),
            offsets(checkpointed.get(first)), stop, restored);
      } catch (RuntimeException e) {
        failed.set(true);
        failure = e;
      }
    }
    for (CompletableFuture<Long> f : others) {
      try {
        applied += f.get();
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = e.getCause() instanceof RuntimeException r ? r
              : new IllegalStateException("restoring stores failed: " + e.getCause(), e.getCause());
        }
      } catch (InterruptedException e) {
        failed.set(true);
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while restoring stores", e);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return applied;
  }

  private static long[] offsets(List<Long> checkpointed) {
    return checkpointed.stream().mapToLong(Long::longValue).toArray();
  }


  /**
   * What a commit works on: the attached instances with a changelog, in checkpoint order, and the
   * engines, as they were when it began. A commit in the background goes on with these while the
   * loop attaches other tasks' stores (it never closes any under it: see {@code Committer}).
   */
  public final class Snapshot implements CommitParticipant.Round {
    private final List<Logged> logged;
    private final EngineSync.Engines engines;
    private final boolean besideLoop;

    private Snapshot(List<Logged> logged, EngineSync.Engines engines, boolean besideLoop) {
      this.logged = logged;
      this.engines = engines;
      this.besideLoop = besideLoop;
    }

    @Override
    public boolean offLoop() {
      return besideLoop;
    }

    @Override
    public void beforeCheckpoint(long[] checkpoint, int from) {
      ContainerStores.this.beforeCheckpoint(this, checkpoint, from);
    }

    @Override
    public void afterCheckpoint(Executor exactlyOnceAfter) {
      ContainerStores.this.afterCheckpoint(this, exactlyOnceAfter);
    }

    /**
     * Whether the steps after {@link #handOver} may run on another thread while the loop goes
     * on: every engine takes writes from any thread (so one may sync while the flusher writes).
     * Under exactly-once the engines stage their writes, which only {@link #afterCheckpoint}
     * applies, on the loop, once the flusher was drained: the staged writes are then exactly the
     * transaction's.
     */
    public boolean besideLoop() {
      return besideLoop;
    }
  }

  @Override
  public List<StreamPartition> checkpointed() {
    return changelogPartitions();
  }

  @Override
  public Snapshot round() {
    return snapshot();
  }

  /** The stores as a commit beginning now sees them; the same object until they change. */
  public Snapshot snapshot() {
    if (snapshot == null) {
      boolean concurrent = true;
      for (List<StoreInstance> instances : byTask.values()) {
        for (StoreInstance instance : instances) {
          concurrent &= instance.store().engine().concurrentWrites();
        }
      }
      snapshot = new Snapshot(List.copyOf(logged), sync.current(), concurrent);
    }
    return snapshot;
  }

  /**
   * Commit, step 1: every store's dirty entries to its engine and changelog; returns once every
   * changelog record is in its producer and every write in its engine (the flusher's thread may
   * have been doing both).
   */
  public void flush() {
    flusher.await(handOver());
  }

  /**
   * Commit, step 1, without waiting: every store's dirty entries are handed to the flusher (or
   * written, where an engine or a changelog cannot leave the loop thread). Loop thread.
   *
   * @return what to pass to {@link #awaitHandedOver}
   */
  @Override
  public long handOver() {
    // Every store serialized first, then handed over at once (StoreFlusher.handOver says why).
    List<CachedStore<?, ?>> flushing = new ArrayList<>();
    List<StoreFlusher.Flush> flushes = new ArrayList<>();
    for (List<StoreInstance> instances : byTask.values()) {
      for (StoreInstance instance : instances) {
        instance.store().closeLeakedIterators();
        StoreFlusher.Flush flush = instance.store().serializeDirty();
        if (flush != null) {
          flushing.add(instance.store());
          flushes.add(flush);
        }
      }
    }
    long sequence = flusher.handOver(flushes);
    for (CachedStore<?, ?> store : flushing) {
      store.flushed(flusher.defersWrites(store.engine()) ? sequence : 0);
    }
    return flusher.handed();
  }

  /**
   * Waits until the flusher has done everything handed to it up to {@link #handOver}'s return;
   * throws its first failure. Any one thread.
   */
  @Override
  public void awaitHandedOver(long handed) {
    flusher.await(handed);
  }

  /**
   * Whether the flusher has a thread of its own: a transaction may then commit beside the loop,
   * the flusher {@linkplain #parkFlusher parked} after the commit's records (inline, the loop's
   * own flushes would send and stage into the committing transaction).
   */
  @Override
  public boolean flusherThreaded() {
    return flusher.threaded();
  }

  /**
   * The flusher finishes what was handed over so far ({@link #awaitHandedOver} that), then waits
   * for {@link #unparkFlusher}: what the stores flush from now on goes into the next transaction.
   * Loop thread.
   */
  @Override
  public void parkFlusher() {
    flusher.parkAfterHanded();
  }

  /** Lets the flusher go on after {@link #parkFlusher}. Any thread. */
  @Override
  public void unparkFlusher() {
    flusher.unpark();
  }

  /**
   * Waits until the flusher has done everything handed to it: no changelog send of it runs while
   * a transaction commits. Loop thread.
   */
  @Override
  public void awaitFlusher() {
    flusher.drain();
  }

  /**
   * Commit, step 3 (after the producers were flushed), for the stores as they were when the
   * commit began: syncs the engines (under exactly-once, not yet: see {@link #afterCheckpoint})
   * and writes the changelog offsets the stores reached into {@code checkpoint} from {@code from}
   * on. Any one thread, if the snapshot is {@linkplain Snapshot#besideLoop beside the loop}.
   * A changelog offset is read before the engines sync: every record up to it was written to
   * its engine before it was sent, so the synced files hold at least that much (a record sent
   * since the commit began may be there too, which a replay puts again).
   */
  public void beforeCheckpoint(Snapshot stores, long[] checkpoint, int from) {
    awaitApplied(); // the last commit's marks read the offsets this overwrites
    List<Logged> logged = stores.logged;
    if (from + logged.size() != checkpoint.length) {
      // The layout the checkpoint was made for is not the stores' own any more: writing it would
      // put one task's changelog offset under another's name.
      throw new IllegalStateException("the checkpoint layout holds " + (checkpoint.length - from)
          + " changelog partitions, the stores " + logged.size()
          + ": the layout was not rebuilt when the container's tasks changed");
    }
    for (Logged l : logged) {
      long last = l.instance.changelog().lastOffset();
      if (last >= 0) {
        l.offset = last;
      }
    }
    if (!staged) {
      sync.syncAll(stores.engines);
    }
    for (int i = 0; i < logged.size(); i++) {
      checkpoint[from + i] = logged.get(i).offset;
    }
  }

  /**
   * Exactly-once, commit step 4's start (the flusher drained, the checkpoint's transaction about
   * to commit): the staging engines seal what they staged, which is exactly that transaction's
   * writes; what the tasks write from now on stages for the next. The committing thread: the
   * loop's, or the commit's with the flusher parked after the transaction's writes.
   */
  @Override
  public void seal() {
    if (staged) {
      awaitApplied();
      sync.sealAll();
    }
  }

  /** As {@link #afterCheckpoint(Snapshot, Executor)}, all of it on this thread. */
  public void afterCheckpoint(Snapshot stores) {
    afterCheckpoint(stores, Runnable::run);
  }

  /**
   * Commit, step 5 (the checkpoint is written): records in each persistent store's directory the
   * changelog offset its files hold, which the checkpoint now holds too. Not before: a
   * checkpoint that failed (or was fenced) must not leave files claiming writes it never made.
   * Under exactly-once the engines first apply the writes they sealed, which the checkpoint's
   * transaction has just made true, and are synced before a mark; all of it on {@code
   * exactlyOnceAfter} (a commit's own thread, while the tasks go on: reads find the sealed
   * writes until the engines hold them). A crash before the mark replays the changelog from the
   * previous one, which puts the same values again. For the stores the commit began with; loop
   * thread.
   */
  public void afterCheckpoint(Snapshot stores, Executor exactlyOnceAfter) {
    if (staged) {
      awaitApplied();
      applying = CompletableFuture.runAsync(() -> applyAndMark(stores), exactlyOnceAfter);
      return;
    }
    for (Logged l : stores.logged) {
      mark(l, l.offset);
    }
  }

  /** Exactly-once: a committed transaction's writes applied, and the files marked when due. */
  private void applyAndMark(Snapshot stores) {
    sync.applyAll();
    for (Logged l : stores.logged) {
      l.applied = l.offset;
    }
    long now = System.nanoTime();
    if (lastMarkNanos != Long.MIN_VALUE && now - lastMarkNanos < MARK_INTERVAL_NANOS
        && !firstMarkDue(stores.logged)) {
      return;
    }
    sync.syncCommitted();
    lastMarkNanos = now;
    for (Logged l : stores.logged) {
      mark(l, l.offset);
    }
  }

  /**
   * Waits for the last commit's writes to be applied; throws what applying them threw (the
   * engines may lack a committed write then: the container stops, and a restart replays them).
   */
  private void awaitApplied() {
    try {
      applying.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("applying a commit's writes failed: " + e.getCause(),
          e.getCause());
    }
  }

  /**
   * Whether an instance has reached a changelog offset but its files were never marked since it
   * opened: marked now, a crash replays its tail instead of restoring it in full.
   */
  private static boolean firstMarkDue(List<Logged> logged) {
    for (Logged l : logged) {
      if (!l.marked && l.offset != CheckpointStore.NONE && l.persistent()) {
        return true;
      }
    }
    return false;
  }

  /** Records in a persistent instance's directory that its files hold the changelog to offset. */
  private static void mark(Logged l, long offset) {
    if (l.persistent() && offset != CheckpointStore.NONE) {
      LocalOffsetFile.write(l.instance.dir(), offset);
      l.marked = true;
    }
  }

  private void syncAndMarkAppliedQuietly(int taskNumber) {
    try {
      awaitApplied();
      syncAndMarkApplied(taskNumber);
    } catch (RuntimeException e) {
      // The files keep their previous mark, which a restart replays from: nothing is lost.
      LOG.warn("stores could not be synced before closing: a restart replays more of their "
          + "changelogs", e);
    }
  }

  /**
   * Exactly-once, before a task's instances close (every task's when {@code taskNumber} is -1):
   * their engines hold every write applied by the last commit and nothing else, whether or not a
   * commit followed it, so their files are synced and marked with the changelog offset of that
   * commit (a restart then replays only what follows).
   */
  private void syncAndMarkApplied(int taskNumber) {
    for (Logged l : logged) {
      if (l.persistent() && (taskNumber < 0 || l.instance.taskNumber() == taskNumber)) {
        l.instance.engine().sync(); // the engine underneath: never the staged, uncommitted writes
        mark(l, l.applied);
      }
    }
  }

  /**
   * Closes a task's instances and forgets them: the checkpoint layout no longer holds their
   * changelogs. {@code committed}: a commit flushed them. Not committed (the task was lost): their
   * local files may hold writes no checkpoint has, so their changelog offset record is removed,
   * and whoever opens them next here restores them in full.
   */
  public void closeTask(int taskNumber, boolean committed) {
    List<StoreInstance> instances = byTask.remove(taskNumber);
    attachedTasks.remove(taskNumber);
    if (instances == null) {
      return;
    }
    // No deferred write of theirs may land after their engines close. A lost task's fence is
    // not its failure: what it wrote since its last commit is dropped anyway.
    if (committed) {
      flusher.drain();
    } else {
      flusher.drainAfterLoss();
    }
    if (staged) {
      syncAndMarkAppliedQuietly(taskNumber);
    } else if (!committed) {
      // (Under exactly-once the files hold only committed writes, marked with their offset.)
      for (StoreInstance instance : instances) {
        LocalOffsetFile.delete(instance.dir());
      }
    }
    logged.removeIf(l -> l.instance.taskNumber() == taskNumber);
    sync.update(engines());
    snapshot = null;
    for (StoreInstance instance : instances) {
      try {
        instance.store().close();
      } catch (RuntimeException e) {
        LOG.warn("store {} of task {} failed to close", instance.spec().name(), taskNumber, e);
      }
    }
  }

  /**
   * The container holds no task any more: a fence its flusher met (a changelog send that found
   * the transaction aborted) was theirs, and the flusher serves the next tasks.
   */
  public void forgetFence() {
    flusher.forgetFence();
  }

  /**
   * What this process holds on local disk: for each task with local files of a store that has a
   * changelog, the changelog offset those files hold (store name -> offset). Read from the files
   * each time: another container of the process may have written them.
   */
  public Map<Integer, Map<String, Long>> localState() {
    Map<Integer, Map<String, Long>> state = new java.util.TreeMap<>();
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
            state.computeIfAbsent(task, t -> new java.util.TreeMap<>()).put(spec.name(), offset);
          }
        }
      } catch (IOException | NumberFormatException e) {
        LOG.warn("cannot list the local files of store {} in {}: {}", spec.name(), dir,
            e.toString());
      }
    }
    return state;
  }

  private List<StorageEngine> engines() {
    List<StorageEngine> engines = new ArrayList<>();
    for (List<StoreInstance> instances : byTask.values()) {
      for (StoreInstance instance : instances) {
        engines.add(instance.store().engine());
      }
    }
    return engines;
  }

  /** Closes every store and the shared resources. */
  @Override
  public void close() {
    for (ChangelogRestorer r : restorerBySystem.values()) {
      r.close(); // their consumers: no restore runs any more
    }
    if (!flusher.stop()) {
      // Its thread is still in an engine (a write that hangs): closing the engines under it would
      // crash the process, so they are left to the process's end.
      LOG.error("the store flusher did not stop within 10 s: store engines left open");
      sync.close();
      return;
    }
    if (staged) {
      syncAndMarkAppliedQuietly(-1);
    }
    for (List<StoreInstance> instances : byTask.values()) {
      for (StoreInstance instance : instances) {
        try {
          instance.store().close();
        } catch (RuntimeException e) {
          LOG.warn("store {} failed to close", instance.spec().name(), e);
        }
      }
    }
    byTask.clear();
    attachedTasks.clear();
    sync.close();
    resources.close();
  }
}
