package io.millrace.core.store;

import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.spi.engine.CorruptStoreException;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.system.StartPosition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standby copies of one process ({@code job.standby.replicas}): for each task the group asks
 * this process to keep a copy of, every persistent store with a changelog is opened in its usual
 * place ({@code <job.state.dir>/stores/<store>/task-<n>}) and follows its changelog as the task's
 * active owner writes it. Every mark interval each copy is synced and its local files marked
 * with the changelog offset they hold, exactly as an active store's are at a commit. So when the
 * task comes to this process (its owner died, or the group moved it here), opening it is what a
 * restart on the same machine does: local files plus the changelog's tail.
 *
 * <p><b>One thread, one writer.</b> The copies are opened, written, marked and closed by the
 * process's state updater's thread only ({@code StateUpdater}, which runs {@link #cycle} between
 * the restores of arriving tasks); containers talk to it through {@link #want}, {@link #activate}
 * and {@link #deactivate}, which change shared sets under one lock. A task active in a container
 * of this process is never opened as a standby here (its active stores hold the files' lock):
 * {@link #activate} waits until the updater's thread has handed the copy over, still open, with
 * the changelog offset it holds (on that thread itself, as a restore prepares the task, it hands
 * the copy over at once). The container's stores take the open engines as they are: a
 * takeover does not close and reopen RocksDB (a tenth of a second per store on a busy machine,
 * most of what a standby's takeover took before anything was replayed). A handed-over engine
 * keeps the memory it was opened with (the standby copies' budget) until its task leaves.
 *
 * <p><b>Only committed writes.</b> The copies read their changelogs through a consumer of the
 * changelog's system built as the job's own: where the job's writes to that cluster are
 * transactional (exactly-once, or {@code job.coordinator=kafka}), it reads {@code
 * read_committed}, so a copy never holds a write its owner's transaction aborted.
 *
 * <p>A store whose engine keeps nothing on disk (the {@code memory} engine) has no standby copy:
 * its task restores it in full wherever it goes.
 *
 * <p><b>Paced beside busy tasks.</b> A copy's task still runs elsewhere, so catching a copy up
 * (a warm-up's whole changelog, say) is never urgent: while the process's containers have input
 * waiting ({@link #paceWhile}), the thread takes at most {@code job.container.restore.beside.percent}
 * of the time, resting after each batch in proportion to the time it took to apply. A task's own
 * restore when it arrives (a failover) is not paced: its output stands still until it ends.
 *
 * <p><b>Size.</b> Past 500 lines: the hand-over protocol between the updater's thread and the
 * containers (want, claim, activate, deactivate) is one lock's state and stays in one place, and
 * the copies' following (open, follow, pace, mark, close) is what that state guards; each copy's
 * own state and its changelog's batches are a {@link StandbyCopy}.
 */
public final class StandbyReplicas implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StandbyReplicas.class);
  /** How long a container taking a task waits for the task's standby copy to close. */
  private static final long ACTIVATE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);
  /** How long a poll of the changelogs waits when nothing is there (and a change waits). */
  private static final long POLL_MILLIS = 20;
  private final List<StoreSpec> specs;
  private final Path storesDir;
  private final StoreResources resources;
  /** The process's changelog reader of a system, shared with the restores. */
  private final Function<String, ChangelogReader> readerOf;
  private final MetricsRegistry metrics;
  private final long markIntervalNanos;
  /** The changelog partition of a task's stores ({@link ChangelogPartitions}). */
  private final IntUnaryOperator changelogPartitionOf;

  // Shared with the containers' threads, under lock.
  private final Object lock = new Object();
  private final Map<Integer, Set<Integer>> wantedByContainer = new TreeMap<>();
  private final Set<Integer> activeHere = new HashSet<>();
  /** The tasks with a copy open, as the standby thread last published them. */
  private final Set<Integer> openTasks = new HashSet<>();
  /** Each open copy's lag, per task: what {@link #lag} reports. */
  private final Map<Integer, Long> lagByTask = new HashMap<>();
  /** Each open copy's changelog offset per store, per task: what {@link #held} reports. */
  private final Map<Integer, Map<String, Long>> heldByTask = new TreeMap<>();
  /** Copies handed over open, per task, until the container that takes the task collects them. */
  private final Map<Integer, List<StandbyCopy>> handedOver = new HashMap<>();
  /** Tasks whose uncollected copies a {@link #deactivate} is closing: none opens meanwhile. */
  private final Set<Integer> closing = new HashSet<>();
  /**
   * Engines collected by containers and not closed yet: they use this object's memory (block
   * cache, write-buffer manager), which {@link #close} frees only once they are all closed.
   */
  private final AtomicInteger handedOpen = new AtomicInteger();
  /** What runs the copies' cycles: the process's state updater. */
  private volatile Runner runner;
  private volatile boolean running = true;
  /** Whether the process's containers have input waiting: the copies then take their share. */
  private volatile java.util.function.BooleanSupplier othersBusy = () -> false;
  /** Their share of the time, in percent, while the containers are busy (100: no pacing). */
  private volatile int besidePercent = 100;

  // The updater thread's own.
  private final Map<Integer, List<StandbyCopy>> open = new TreeMap<>();
  /** Scratch for the reader's indices of one system's copies, at each poll. */
  private int[] indices = new int[8];
  private final Map<Integer, Long> retryAfter = new HashMap<>();
  private long nextMark;
  private boolean marking;

  /**
   * Standby copies for one process.
   *
   * @param specs the job's stores (those with a changelog and a persistent engine get copies)
   * @param storesDir where the process's store files are ({@code <job.state.dir>/stores})
   * @param jobConfig the job's configuration (engine-wide keys)
   * @param expectedCopies how many store instances the copies may hold at once (engines size
   *     their share of the memory budget by it)
   * @param readerOf the process's reader of a changelog system (shared with the restores, on
   *     the state updater's thread), its consumer made as the job's own
   * @param metrics where the lag gauges go (group {@code standby})
   * @param markInterval how often the copies are synced and marked, in nanoseconds: what a
   *     takeover replays at most beyond what the active wrote since
   */
  public StandbyReplicas(List<StoreSpec> specs, Path storesDir, Map<String, String> jobConfig,
      int expectedCopies, Function<String, ChangelogReader> readerOf, MetricsRegistry metrics,
      long markInterval) {
    this(specs, storesDir, jobConfig, expectedCopies, readerOf, metrics, markInterval,
        task -> task);
  }

  /**
   * As the other constructor, for a job whose tasks' stores are in the changelog partitions
   * {@code changelogPartitionOf} gives ({@link ChangelogPartitions}).
   */
  public StandbyReplicas(List<StoreSpec> specs, Path storesDir, Map<String, String> jobConfig,
      int expectedCopies, Function<String, ChangelogReader> readerOf, MetricsRegistry metrics,
      long markInterval, IntUnaryOperator changelogPartitionOf) {
    this.changelogPartitionOf = changelogPartitionOf;
    this.specs = specs.stream().filter(StoreSpec::hasChangelog).toList();
    this.storesDir = storesDir;
    this.resources = new StoreResources(jobConfig, Math.max(1, expectedCopies));
    this.readerOf = readerOf;
    this.metrics = metrics;
    this.markIntervalNanos = markInterval;
  }

  /**
   * What runs the copies: the process's state updater ({@code StateUpdater}), whose thread runs
   * {@link #cycle} between the restores it puts first.
   */
  interface Runner {
    /** Starts the thread that runs {@link #cycle} (the first copy is wanted). Any thread. */
    void start();

    /** Whether the calling thread is the one that runs {@link #cycle}. */
    boolean onThread();

    /** Whether a restore waits for the thread: the copies give it up. Any thread. */
    boolean restoreWaiting();
  }

  /** The copies' cycles run on {@code runner}'s thread (the state updater says so at once). */
  void runBy(Runner runner) {
    this.runner = runner;
  }

  /**
   * Container {@code containerId} keeps standby copies of these tasks now (replacing what it
   * kept): the updater's thread opens what is new and closes what is gone. Any thread.
   */
  public void want(int containerId, Set<Integer> tasks) {
    if (specs.isEmpty()) {
      return;
    }
    synchronized (lock) {
      if (tasks.isEmpty()) {
        wantedByContainer.remove(containerId);
      } else {
        wantedByContainer.put(containerId, new TreeSet<>(tasks));
      }
      lock.notifyAll();
    }
    Runner r = runner;
    if (!tasks.isEmpty() && r != null) {
      r.start();
    }
  }

  /**
   * A container of this process is about to take these tasks as their active owner, and will
   * {@link #activate} them from another thread: from now on their copies are kept open to be
   * handed over, not closed because no container wants them as standbys any more (the
   * assignment that makes a task active here also drops its standby copy). Does not wait. Any
   * thread; {@link #deactivate} each task if it is not taken after all.
   */
  public void claim(Set<Integer> tasks) {
    synchronized (lock) {
      activeHere.addAll(tasks);
      lock.notifyAll();
    }
  }

  /**
   * A container of this process takes task {@code task} as its active owner: returns once no
   * standby copy of it is open here, with the copy's engines if there was one (still open, each
   * with the changelog offset it holds, so the task replays only what follows). No copy of it is
   * opened until {@link #deactivate}. Any thread.
   *
   * @return the copy's engines by store name, the caller's to use and close (empty: no copy)
   * @throws IllegalStateException if the copy was not handed over within 60 s
   */
  public Map<String, OpenCopy> activate(int task) {
    return activate(Set.of(task)).get(task);
  }

  /**
   * As {@link #activate(int)} for several tasks at once: the standby thread hands their copies
   * over together (one after another, each would wait for one of its cycles). Any thread.
   *
   * @return per task, its copy's engines by store name (empty: no copy)
   * @throws IllegalStateException if a copy was not handed over within 60 s (the ones that were
   *     stay the standby's to close: call {@link #deactivate} for every task)
   */
  public Map<Integer, Map<String, OpenCopy>> activate(Set<Integer> tasks) {
    Runner r = runner;
    if (r != null && r.onThread()) {
      // A restore preparing the tasks on the updater's thread: the copies are this thread's to
      // hand over, now (waiting for the next cycle would wait for itself).
      synchronized (lock) {
        activeHere.addAll(tasks);
      }
      handOverTaken();
    }
    synchronized (lock) {
      activeHere.addAll(tasks);
      lock.notifyAll();
      long deadline = System.nanoTime() + ACTIVATE_WAIT_NANOS;
      while (running && tasks.stream().anyMatch(openTasks::contains)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("the standby copies of tasks " + tasks + " were not "
              + "handed over within 60 s: their stores cannot be opened as the tasks' own");
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while taking the standby copies of tasks "
              + tasks, e);
        }
      }
      Map<Integer, Map<String, OpenCopy>> byTask = new TreeMap<>();
      for (int task : tasks) {
        List<StandbyCopy> copies = handedOver.remove(task);
        Map<String, OpenCopy> engines = new HashMap<>();
        if (copies != null) {
          for (StandbyCopy c : copies) {
            handedOpen.incrementAndGet();
            engines.put(c.spec.name(), new OpenCopy(new HandedEngine(c.engine, handedOpen), c.applied));
          }
        }
        byTask.put(task, engines);
      }
      return byTask;
    }
  }

  /** Task {@code task} left its container here: a standby copy of it may be kept again. */
  public void deactivate(int task) {
    List<StandbyCopy> uncollected;
    synchronized (lock) {
      // (A copy handed over after its activate gave up waiting: nobody will collect it now.
      // In the same step as leaving activeHere, so none is handed over after this.)
      uncollected = handedOver.remove(task);
      activeHere.remove(task);
      if (uncollected != null) {
        closing.add(task); // no new copy opens its files until they are closed
      }
      lock.notifyAll();
    }
    if (uncollected != null) {
      try {
        closeMarked(uncollected);
      } finally {
        synchronized (lock) {
          closing.remove(task);
          lock.notifyAll();
        }
      }
    }
  }

  /**
   * The lag of the copies container {@code containerId} keeps: task -> changelog records not
   * applied yet, over all its stores (-1 while not known, or while the copy is not open).
   */
  public Map<Integer, Long> lag(int containerId) {
    Map<Integer, Long> lag = new TreeMap<>();
    synchronized (lock) {
      for (int task : wantedByContainer.getOrDefault(containerId, Set.of())) {
        lag.put(task, lagByTask.getOrDefault(task, -1L));
      }
    }
    return lag;
  }

  /**
   * What the open copies hold now: per task, each store's changelog offset (newer than their
   * files' marks, which follow every mark interval; a copy closes marked with it). Any thread.
   */
  public Map<Integer, Map<String, Long>> held() {
    synchronized (lock) {
      Map<Integer, Map<String, Long>> held = new TreeMap<>();
      heldByTask.forEach((task, stores) -> held.put(task, new TreeMap<>(stores)));
      return held;
    }
  }

  /**
   * One cycle of the copies on the updater's thread: closes or hands over what is no longer
   * wanted, opens what is new, follows the changelogs for one poll, marks when due; waits (up to
   * a second) while there is nothing to follow. Gives way as soon as a restore waits.
   */
  void cycle() {
    if (!marking) {
      nextMark = System.nanoTime() + markIntervalNanos;
      marking = true;
    }
    try {
      step();
    } catch (RuntimeException e) {
      LOG.warn("standby copies: {}; closing them and starting over in 1 s", e.toString(), e);
      closeAll();
      restUnlessWanted(TimeUnit.SECONDS.toNanos(1));
    }
  }

  /**
   * Hands over, on the updater's thread, the open copies of tasks a container here is taking
   * (between two batches of a restore, or as a restore prepares them). A failure closes every
   * copy, as a failed cycle does: the tasks then restore without them.
   */
  void handOverTaken() {
    if (!handOverDue()) {
      return;
    }
    try {
      for (int task : new ArrayList<>(open.keySet())) {
        boolean taking;
        synchronized (lock) {
          taking = activeHere.contains(task);
        }
        if (taking) {
          closeOrHandOver(task);
        }
      }
      publish();
    } catch (RuntimeException e) {
      LOG.warn("standby copies: {}; closing them", e.toString(), e);
      closeAll();
    }
  }

  /** Wakes the updater's thread out of a copies' rest or idle wait. Any thread. */
  void wake() {
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  /** Whether an arriving task's restore waits for the updater's thread: copies give way. */
  private boolean restoreWaiting() {
    Runner r = runner;
    return r != null && r.restoreWaiting();
  }

  private void step() {
    Set<Integer> desired = desired();
    boolean closed = false;
    for (int task : new ArrayList<>(open.keySet())) {
      if (!desired.contains(task)) {
        closeOrHandOver(task);
        closed = true;
      }
    }
    if (closed) {
      // At once, not after the opens below: a container taking a copy's task waits in
      // activate for this, and opening a handful of new copies takes half a second.
      publish();
    }
    long now = System.nanoTime();
    for (int task : desired) {
      if (handOverDue() || restoreWaiting()) {
        break; // a container waits to take one, or a restore: first that, then the opens
      }
      Long retry = retryAfter.get(task);
      if (!open.containsKey(task) && (retry == null || now - retry >= 0) && claim(task)) {
        openCopies(task);
      }
    }
    publish();
    if (open.isEmpty()) {
      synchronized (lock) {
        if (running && desiredUnchanged(desired) && !restoreWaiting()) {
          try {
            lock.wait(1_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
          }
        }
      }
      return;
    }
    follow();
    if (System.nanoTime() - nextMark >= 0 && markAll()) {
      nextMark = System.nanoTime() + markIntervalNanos;
    }
  }

  /** Whether a container of this process waits to take the task of an open copy. */
  private boolean handOverDue() {
    synchronized (lock) {
      return handOverDueLocked();
    }
  }

  /** As {@link #handOverDue}, under the lock. */
  private boolean handOverDueLocked() {
    for (int task : activeHere) {
      if (open.containsKey(task)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Claims a task's files for a copy, unless a container of this process has it now: from here
   * on {@link #activate} waits for the copy to close. Without the claim a container could take
   * the task between the check and the open, and both would open its files.
   */
  private boolean claim(int task) {
    synchronized (lock) {
      if (activeHere.contains(task) || closing.contains(task) || !running) {
        return false;
      }
      openTasks.add(task);
      return true;
    }
  }

  private void unclaim(int task) {
    synchronized (lock) {
      openTasks.remove(task);
      lock.notifyAll();
    }
  }

  /** The copies to keep open: every container's wishes, never a task active here. */
  private Set<Integer> desired() {
    Set<Integer> desired = new TreeSet<>();
    synchronized (lock) {
      wantedByContainer.values().forEach(desired::addAll);
      desired.removeAll(activeHere);
    }
    return desired;
  }

  private boolean desiredUnchanged(Set<Integer> desired) {
    Set<Integer> now = new TreeSet<>();
    wantedByContainer.values().forEach(now::addAll);
    now.removeAll(activeHere);
    return now.equals(desired);
  }

  /** Publishes which copies are open and their lag; wakes a container waiting to activate. */
  private void publish() {
    synchronized (lock) {
      openTasks.clear();
      openTasks.addAll(open.keySet());
      lagByTask.clear();
      heldByTask.clear();
      open.forEach((task, copies) -> {
        for (StandbyCopy c : copies) {
          if (c.applied >= 0) {
            heldByTask.computeIfAbsent(task, t -> new TreeMap<>()).put(c.spec.name(), c.applied);
          }
        }
        long sum = 0;
        for (StandbyCopy c : copies) {
          long l = c.lag();
          if (l < 0) {
            sum = -1;
            break;
          }
          sum += l;
        }
        lagByTask.put(task, sum);
      });
      lock.notifyAll();
    }
  }

  /** Opens a task's copies and starts following their changelogs. */
  private void openCopies(int task) {
    List<StandbyCopy> copies = new ArrayList<>();
    try {
      for (StoreSpec spec : specs) {
        StandbyCopy copy = openCopy(task, spec);
        if (copy != null) {
          copies.add(copy);
        }
      }
    } catch (RuntimeException e) {
      for (StandbyCopy c : copies) {
        release(c, false);
      }
      LOG.warn("cannot open the standby copy of task {}: {}; trying again in 10 s", task,
          e.toString());
      retryAfter.put(task, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
      unclaim(task);
      return;
    }
    retryAfter.remove(task);
    open.put(task, copies);
    for (StandbyCopy c : copies) {
      c.reader = readerOf.apply(c.spec.changelogSystem());
      c.index = c.reader.register(c.spec.changelogSpec(), changelogPartitionOf.applyAsInt(task),
          c.applied >= 0 ? StartPosition.after(c.applied) : StartPosition.oldest(),
          c, true);
      c.lagGauge = c::lag;
      metrics.gauge("standby", c.gaugeName(), c.lagGauge);
    }
    if (!copies.isEmpty()) {
      LOG.info("standby copy of task {} opened: {}", task, StandbyCopy.describe(copies));
    }
  }

  private StandbyCopy openCopy(int task, StoreSpec spec) {
    Path dir = StoreFiles.dir(storesDir, spec.name(), task);
    long local = LocalOffsetFile.read(dir);
    if (local < 0) {
      StoreFiles.wipe(dir); // nothing says what the files hold: follow from the start
    }
    StorageEngine engine;
    try {
      engine = spec.factory().open(spec.engineSpec(), dir, resources);
    } catch (CorruptStoreException e) {
      LOG.warn("standby copy of store {} of task {}: local files in {} are damaged ({}): wiping "
          + "them and following the changelog from the start", spec.name(), task, dir,
          e.getMessage());
      StoreFiles.wipe(dir);
      local = -1;
      engine = spec.factory().open(spec.engineSpec(), dir, resources);
    }
    if (!engine.persistent()) {
      engine.close(); // kept in memory only: nothing a takeover could reuse
      return null;
    }
    return new StandbyCopy(task, spec, engine, dir, local);
  }

  /** Reads what the changelogs have for the open copies and applies it, one write per batch. */
  private void follow() {
    Map<ChangelogReader, List<StandbyCopy>> byReader = new LinkedHashMap<>();
    for (List<StandbyCopy> copies : open.values()) {
      for (StandbyCopy c : copies) {
        if (c.index >= 0) {
          byReader.computeIfAbsent(c.reader, r -> new ArrayList<>()).add(c);
        }
      }
    }
    boolean first = true;
    long wrote = applyNanos();
    for (Map.Entry<ChangelogReader, List<StandbyCopy>> reader : byReader.entrySet()) {
      List<StandbyCopy> copies = reader.getValue();
      if (indices.length < copies.size()) {
        indices = new int[Math.max(copies.size(), indices.length * 2)];
      }
      for (int i = 0; i < copies.size(); i++) {
        indices[i] = copies.get(i).index;
      }
      try {
        reader.getKey().poll(indices, copies.size(), 10_000,
            first && !restoreWaiting() ? POLL_MILLIS : 0);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
        return;
      }
      first = false;
    }
    rest(applyNanos() - wrote);
  }

  /** Nanoseconds the open copies have spent writing batches to their engines. */
  private long applyNanos() {
    long nanos = 0;
    for (List<StandbyCopy> copies : open.values()) {
      for (StandbyCopy c : copies) {
        nanos += c.applyNanos;
      }
    }
    return nanos;
  }

  /**
   * Paces the copies beside busy containers: rests in proportion to {@code appliedNanos}, the
   * time the last batches took to apply, while the containers have input waiting. A container
   * that asks for a copy (a takeover), or a restore waiting for the thread, ends the rest.
   */
  private void rest(long appliedNanos) {
    int percent = besidePercent;
    if (percent >= 100 || appliedNanos <= 0 || !othersBusy.getAsBoolean()) {
      return;
    }
    rest.rest(appliedNanos * (100 - percent) / percent);
  }

  /** How the copies rest beside busy containers (a test listens instead). */
  Rest rest = this::restUnlessWanted;

  /** A rest of the copies' thread, {@code nanos} long. */
  interface Rest {
    void rest(long nanos);
  }

  /** Rests {@code nanos}, or less: a takeover or a restore waiting for the thread ends it. */
  private void restUnlessWanted(long nanos) {
    synchronized (lock) {
      if (!running || handOverDueLocked() || restoreWaiting()) {
        return;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(lock, nanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
      }
    }
  }

  /**
   * Paces the copies' catching up while {@code busy} says the process's containers have input
   * waiting: they then take at most {@code percent} of the time ({@code
   * job.container.restore.beside.percent}). Any thread, before or while the copies run.
   */
  public void paceWhile(java.util.function.BooleanSupplier busy, int percent) {
    if (percent < 1 || percent > 100) {
      throw new IllegalArgumentException("the share of the time a standby copy may take beside "
          + "busy tasks is a percentage from 1 to 100, not " + percent);
    }
    this.othersBusy = busy;
    this.besidePercent = percent;
  }

  /**
   * Syncs every copy that moved and marks its files with the offset it holds; stops early for a
   * restore waiting for the thread or a container waiting to take a copy (a sync flushes
   * RocksDB's memtables: tens of milliseconds each on a busy machine), the rest marked at the
   * next cycle.
   *
   * @return whether every copy was marked
   */
  private boolean markAll() {
    for (List<StandbyCopy> copies : open.values()) {
      for (StandbyCopy c : copies) {
        if (handOverDue() || restoreWaiting()) {
          return false;
        }
        c.mark(); // (one marked already: nothing to do again)
      }
    }
    return true;
  }

  /** Closes a task's copies, synced and marked: a container of this process may take it now. */
  private void close(int task) {
    List<StandbyCopy> copies = open.remove(task);
    if (copies == null) {
      return;
    }
    for (StandbyCopy c : copies) {
      release(c, true);
    }
    LOG.info("standby copy of task {} closed: {}", task, StandbyCopy.describe(copies));
  }

  /**
   * A copy no longer wanted: handed over open if a container here is taking its task (the
   * engines it holds something in; one that holds nothing is closed, its files wiped at the
   * open), closed otherwise.
   */
  private void closeOrHandOver(int task) {
    boolean taking;
    synchronized (lock) {
      taking = activeHere.contains(task);
    }
    if (!taking) {
      close(task);
      return;
    }
    List<StandbyCopy> copies = open.remove(task);
    List<StandbyCopy> handed = new ArrayList<>();
    RuntimeException failure = null;
    for (StandbyCopy c : copies) {
      try {
        if (c.applied >= 0) {
          detach(c);
          handed.add(c);
        } else {
          release(c, false);
        }
      } catch (RuntimeException e) {
        failure = e; // this copy is closed, not handed over; the others still are
        closeQuietly(c);
      }
    }
    boolean taken;
    synchronized (lock) {
      taken = activeHere.contains(task); // (its container may have given up meanwhile)
      if (taken) {
        handedOver.put(task, handed);
      }
    }
    if (taken) {
      LOG.info("standby copy of task {} handed over open: {}", task, StandbyCopy.describe(handed));
    } else {
      closeMarked(handed);
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void closeQuietly(StandbyCopy c) {
    try {
      c.engine.close();
    } catch (RuntimeException e) {
      LOG.warn("standby copy of task {} failed to close: {}", c.task, e.toString());
    }
  }

  /** Closes copies detached from the thread's reading, synced and marked. Any thread. */
  private static void closeMarked(List<StandbyCopy> copies) {
    if (copies != null) {
      copies.forEach(StandbyCopy::closeMarked);
    }
  }

  private void release(StandbyCopy c, boolean markFirst) {
    detach(c);
    try {
      if (markFirst) {
        c.mark();
      }
    } finally {
      c.engine.close();
    }
  }

  /** Stops reading a copy's changelog (its engine stays as it is). */
  private void detach(StandbyCopy c) {
    if (c.index < 0) {
      return;
    }
    try {
      c.reader.unregister(c.index);
    } finally {
      c.index = -1;
      metrics.removeGauge("standby", c.gaugeName(), c.lagGauge);
    }
  }

  /** Closes every copy, synced and marked, and stops reading them. The updater's thread. */
  void closeAll() {
    for (int task : new ArrayList<>(open.keySet())) {
      try {
        close(task);
      } catch (RuntimeException e) {
        LOG.warn("standby copy of task {} failed to close: {}", task, e.toString());
      }
    }
    publish();
  }

  /** The updater stops: the copies' waits end, and no copy opens any more. Any thread. */
  void stopping() {
    synchronized (lock) {
      running = false;
      lock.notifyAll();
    }
  }

  /**
   * Frees what the copies share, once the updater's thread has closed them ({@link
   * Runner}'s owner closes this): copies handed over that nobody collected are closed.
   */
  @Override
  public void close() {
    stopping();
    List<List<StandbyCopy>> uncollected;
    synchronized (lock) {
      uncollected = new ArrayList<>(handedOver.values());
      handedOver.clear();
    }
    uncollected.forEach(StandbyReplicas::closeMarked);
    if (handedOpen.get() > 0) {
      // A container left stores open (its flusher hung): freeing the memory under them would
      // crash the process; it goes with the process instead.
      LOG.error("{} store engine(s) handed over by the standby copies are still open: their "
          + "memory is left to the process's end", handedOpen.get());
      return;
    }
    resources.close();
  }
}
