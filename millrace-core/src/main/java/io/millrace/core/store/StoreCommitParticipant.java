package io.millrace.core.store;

import io.millrace.api.StreamPartition;
import io.millrace.core.commit.CommitParticipant;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A container's stores in its commits: the attached task instances as each commit sees them, and
 * the steps of {@link io.millrace.core.commit.Committer}'s protocol that are theirs:
 *
 * <ol>
 *   <li>{@link #handOver}: each store's dirty entries go to its engine and its changelog;
 *   <li>(the container flushes its producers: outputs and changelogs are acknowledged);
 *   <li>{@link Snapshot#beforeCheckpoint}: engines are synced, and the changelog offsets join the
 *       checkpoint;
 *   <li>(the checkpoint is written);
 *   <li>{@link Snapshot#afterCheckpoint}: each store's local files are marked with the changelog
 *       offset they hold, which the checkpoint now holds too.
 * </ol>
 *
 * <p>It owns the store flusher and, under exactly-once, the staged writes' apply. {@link
 * StoreRegistry} opens and closes the instances and tells it which are attached ({@link #add},
 * {@link #remove}); nothing else changes what a commit sees.
 *
 * <p>Loop thread, but for a commit in the background, which waits for the flusher, reads the
 * changelog offsets and syncs the engines on its own thread ({@link #awaitHandedOver}, {@link
 * Snapshot#beforeCheckpoint}), on the {@link Snapshot} it began with, while the loop goes on;
 * the loop removes no instance until that commit is over.
 */
public final class StoreCommitParticipant implements CommitParticipant {
  private static final Logger LOG = LoggerFactory.getLogger(StoreCommitParticipant.class);
  /**
   * Exactly-once: how often, at most, a commit also syncs the engines and marks their files with
   * the changelog offset they hold. Each commit applies its staged writes (committed ones only),
   * so the files hold a committed state whenever they are flushed; the mark only bounds what a
   * crash replays. Every commit (100 ms) would flush RocksDB's memtables into a tiny file each
   * time.
   */
  static final long MARK_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private final StoreFlusher flusher;
  private final EngineSync sync;
  /**
   * Exactly-once: persistent engines stage their writes ({@link StagedEngine}) until the commit's
   * transaction committed, and are synced (the staged writes applied) only then.
   */
  private final boolean staged;
  /** When the files were last marked (the thread that applies commits' writes). */
  private long lastMarkNanos = Long.MIN_VALUE;
  /**
   * Exactly-once: the last commit's sealed writes being applied (and the files marked), on the
   * commit's thread; whatever seals, syncs, marks or closes next waits for it first.
   */
  private volatile CompletableFuture<Void> applying = CompletableFuture.completedFuture(null);
  /** Each attached task's instances, by task number, in the order they were attached. */
  private final Map<Integer, List<StoreInstance>> byTask = new LinkedHashMap<>();
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

  /**
   * @param flusher the flusher the stores hand their dirty entries to; owned from here on
   * @param exactlyOnce whether local files hold only committed writes (engines stage theirs)
   */
  StoreCommitParticipant(StoreFlusher flusher, boolean exactlyOnce) {
    this.flusher = flusher;
    this.staged = exactlyOnce;
    this.sync = new EngineSync(List.of(), Runtime.getRuntime().availableProcessors());
  }

  /** The flusher the stores are built with. */
  StoreFlusher flusher() {
    return flusher;
  }

  /** Whether persistent engines stage their writes until their transaction commits. */
  boolean staged() {
    return staged;
  }

  // ---- which instances a commit sees ----

  /**
   * A task's instances join the commits. Loop thread.
   *
   * @param checkpointed per instance, its changelog offset in the checkpoint (or NONE, or no
   *     changelog)
   */
  void add(int taskNumber, List<StoreInstance> instances, long[] checkpointed) {
    if (byTask.containsKey(taskNumber)) {
      throw new IllegalStateException("the stores of task " + taskNumber + " are open already");
    }
    for (int i = 0; i < instances.size(); i++) {
      StoreInstance instance = instances.get(i);
      if (instance.changelog() != null) {
        logged.add(new Logged(instance, checkpointed[i]));
      }
    }
    byTask.put(taskNumber, instances);
    sync.update(engines());
    snapshot = null;
  }

  /**
   * Whether a store holds writes no flush has handed over yet (what a task wrote as it closed,
   * say). A write that a full batch flushed already went to its engine and changelog, which a
   * restart under at-least-once restores to the head. Loop thread.
   */
  public boolean anyDirty() {
    for (List<StoreInstance> instances : byTask.values()) {
      for (StoreInstance instance : instances) {
        if (instance.store().dirtyCount() > 0) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * A task's instances leave the commits, before they close: no deferred write of theirs may
   * land after their engines close. {@code committed}: a commit flushed them; not committed (the
   * task was lost), their local files may hold writes no checkpoint has, so their changelog
   * offset record is removed (under exactly-once they hold only committed writes, marked with
   * their offset). Loop thread.
   */
  void remove(int taskNumber, boolean committed) {
    List<StoreInstance> instances = byTask.remove(taskNumber);
    if (instances == null) {
      return;
    }
    // A lost task's fence is not its failure: what it wrote since its last commit is dropped.
    if (committed) {
      flusher.drain();
    } else {
      flusher.drainAfterLoss();
    }
    if (staged) {
      syncAndMarkAppliedQuietly(taskNumber);
    } else if (!committed) {
      for (StoreInstance instance : instances) {
        LocalOffsetFile.delete(instance.dir());
      }
    }
    logged.removeIf(l -> l.instance.taskNumber() == taskNumber);
    sync.update(engines());
    snapshot = null;
  }

  /**
   * The container holds no task any more: a fence its flusher met (a changelog send that found
   * the transaction aborted) was theirs, and the flusher serves the next tasks.
   */
  public void forgetFence() {
    flusher.forgetFence();
  }

  /** The changelog partitions, in the order {@link Snapshot#beforeCheckpoint} fills them. */
  @Override
  public List<StreamPartition> checkpointed() {
    List<StreamPartition> partitions = new ArrayList<>();
    for (Logged l : logged) {
      partitions.add(l.instance.changelogPartition());
    }
    return partitions;
  }

  /** The stores as a commit beginning now sees them; the same object until they change. */
  @Override
  public Snapshot round() {
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
   * What a commit works on: the attached instances with a changelog, in checkpoint order, and the
   * engines, as they were when it began. A commit in the background goes on with these while the
   * loop attaches other tasks' stores (it never removes any under it: see {@code Committer}).
   */
  public final class Snapshot implements CommitParticipant.Round {
    private final List<Logged> logged;
    private final EngineSync.Engines engines;
    private final boolean inBackground;

    private Snapshot(List<Logged> logged, EngineSync.Engines engines, boolean inBackground) {
      this.logged = logged;
      this.engines = engines;
      this.inBackground = inBackground;
    }

    /**
     * Whether the steps after {@link #handOver} may run on another thread while the loop goes
     * on: every engine takes writes from any thread (so one may sync while the flusher writes).
     * Under exactly-once the engines stage their writes, which only {@link #afterCheckpoint}
     * applies, once the flusher was drained: the staged writes are then exactly the
     * transaction's.
     */
    @Override
    public boolean offLoop() {
      return inBackground;
    }

    /**
     * Commit, step 3 (after the producers were flushed), for the stores as they were when the
     * commit began: syncs the engines (under exactly-once, not yet: see {@link
     * #afterCheckpoint}) and writes the changelog offsets the stores reached into {@code
     * checkpoint} from {@code from} on. Any one thread, if {@link #offLoop}. A changelog offset
     * is read before the engines sync: every record up to it was written to its engine before
     * it was sent, so the synced files hold at least that much (a record sent since the commit
     * began may be there too, which a replay puts again).
     */
    @Override
    public void beforeCheckpoint(long[] checkpoint, int from) {
      awaitApplied(); // the last commit's marks read the offsets this overwrites
      if (from + logged.size() != checkpoint.length) {
        // The layout the checkpoint was made for is not the stores' own any more: writing it
        // would put one task's changelog offset under another's name.
        throw new IllegalStateException("the checkpoint layout holds "
            + (checkpoint.length - from) + " changelog partitions, the stores " + logged.size()
            + ": the layout was not rebuilt when the container's tasks changed");
      }
      for (Logged l : logged) {
        long last = l.instance.changelog().lastOffset();
        if (last >= 0) {
          l.offset = last;
        }
      }
      if (!staged) {
        sync.syncAll(engines);
      }
      for (int i = 0; i < logged.size(); i++) {
        checkpoint[from + i] = logged.get(i).offset;
      }
    }

    /**
     * Commit, step 5 (the checkpoint is written): records in each persistent store's directory
     * the changelog offset its files hold, which the checkpoint now holds too. Not before: a
     * checkpoint that failed (or was fenced) must not leave files claiming writes it never made.
     * Under exactly-once the engines first apply the writes they sealed, which the checkpoint's
     * transaction has just made true, and are synced before a mark; all of it on {@code
     * exactlyOnceAfter} (a commit's own thread, while the tasks go on: reads find the sealed
     * writes until the engines hold them). A crash before the mark replays the changelog from
     * the previous one, which puts the same values again.
     */
    @Override
    public void afterCheckpoint(Executor exactlyOnceAfter) {
      if (staged) {
        awaitApplied();
        applying = CompletableFuture.runAsync(() -> applyAndMark(this), exactlyOnceAfter);
        return;
      }
      for (Logged l : logged) {
        mark(l, l.offset);
      }
    }
  }

  // ---- the commit's steps on the flusher ----

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

  @Override
  public void parkFlusher() {
    flusher.parkAfterHanded();
  }

  @Override
  public void unparkFlusher() {
    flusher.unpark();
  }

  @Override
  public void awaitFlusher() {
    flusher.drain();
  }

  /**
   * Exactly-once, commit step 4's start (the flusher drained, the checkpoint's transaction about
   * to commit): the staging engines seal what they staged, which is exactly that transaction's
   * writes; what the tasks write from now on stages for the next. The committing thread.
   */
  @Override
  public void seal() {
    if (staged) {
      awaitApplied();
      // The flusher is parked after the transaction's batches (or drained, on the loop): every
      // batch it finished is staged, and none more is being staged.
      sync.sealAll(flusher.finishedSoFar());
    }
  }

  // ---- exactly-once: applying and marking ----

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
    } catch (CompletionException e) {
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

  private List<StorageEngine> engines() {
    List<StorageEngine> engines = new ArrayList<>();
    for (List<StoreInstance> instances : byTask.values()) {
      for (StoreInstance instance : instances) {
        engines.add(instance.store().engine());
      }
    }
    return engines;
  }

  // ---- the container stops ----

  /**
   * Stops the flusher before the instances close; under exactly-once their files are synced and
   * marked with the last commit's offsets.
   *
   * @return whether the instances may close: false if the flusher's thread is still in an engine
   *     (a write that hangs), whose closing under it would crash the process
   */
  boolean stop() {
    if (!flusher.stop()) {
      LOG.error("the store flusher did not stop within 10 s: store engines left open");
      sync.close();
      return false;
    }
    if (staged) {
      syncAndMarkAppliedQuietly(-1);
    }
    return true;
  }

  /** Forgets every instance (they are closed) and frees the sync threads. After {@link #stop}. */
  void close() {
    byTask.clear();
    logged.clear();
    snapshot = null;
    sync.close();
  }
}
