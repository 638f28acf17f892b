package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.spi.engine.EngineResources;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.engine.StorageEngineFactory;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.system.memory.MemorySystemFactory;
import io.millrace.core.testing.Await;
import io.millrace.core.testing.TestSystemContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process's standby copies, with a memory changelog and an engine whose "files" outlive its
 * instances: a copy follows its changelog and marks its files; a task taken by a container of the
 * process gets its copy's engines handed over open, and none is opened while it is active here.
 */
class StandbyReplicasTest {
  private final String changelog = "standby-" + UUID.randomUUID();
  private final MemoryStream log = MemoryStreams.create(changelog, 4);
  private final DiskEngines disk = new DiskEngines();
  private final StoreSpec spec = new StoreSpec("counts", disk, new StringSerde(),
      new LongSerde(), "memory", changelog, 10, 10, Map.of());
  private final DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
  @TempDir Path dir;
  private StandbyReplicas standbys;
  /** Runs the copies' cycles, as the process's state updater does. */
  private StateUpdater updater;
  /** The changelog readers the copies share with restores. */
  private SharedChangelogReaders readers;
  private final java.util.concurrent.atomic.AtomicInteger consumersMade =
      new java.util.concurrent.atomic.AtomicInteger();

  @AfterEach
  void close() {
    if (updater != null) {
      updater.close(); // (and the copies)
    }
    if (readers != null) {
      readers.close();
    }
    MemoryStreams.drop(changelog);
  }

  private StandbyReplicas standbys() {
    readers = new SharedChangelogReaders(system -> {
      consumersMade.incrementAndGet();
      return new MemorySystemFactory().consumer(
          new TestSystemContext("memory", "standby", 1, Map.of(), Map.of(), metrics));
    });
    standbys = new StandbyReplicas(List.of(spec), dir, Map.of(), 4, readers::of, metrics,
        TimeUnit.MILLISECONDS.toNanos(5));
    updater = new StateUpdater(standbys, "standby-test");
    return standbys;
  }

  /**
   * Standby copies following task 1's changelog (3 records, caught up); opening a copy of task
   * 2 will wait until {@code task2Opens} is released.
   */
  private StandbyReplicas followingTask1(CountDownLatch task2Opens) throws Exception {
    write(1, 0, 3);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(1));
    Await.until(Duration.ofSeconds(10), "task 1's copy following", () -> s.lag(0).get(1) == 0L);
    disk.gates.put(storeDir(2), task2Opens);
    return s;
  }

  private Path storeDir(int task) {
    return dir.resolve("counts").resolve("task-" + task);
  }

  private void write(int task, int from, int to) {
    for (int i = from; i < to; i++) {
      log.append(task, bytes("k" + i), new LongSerde().toBytes((long) i));
    }
  }

  @Test
  void besideBusyContainersACopyRestsAfterEachBatchAndBesideIdleOnesNever() throws Exception {
    write(1, 0, 30_000); // three polls' worth
    java.util.concurrent.atomic.AtomicBoolean busy = new java.util.concurrent.atomic.AtomicBoolean(true);
    List<Long> rests = new java.util.concurrent.CopyOnWriteArrayList<>();
    StandbyReplicas s = standbys();
    s.rest = rests::add;
    s.paceWhile(busy::get, 25);
    s.want(0, Set.of(1));
    Await.until(Duration.ofSeconds(120), "task 1's copy caught up", () -> s.lag(0).get(1) == 0L);
    int whileBusy = rests.size();
    assertThat(whileBusy).as("a rest after each batch applied").isGreaterThanOrEqualTo(2);
    assertThat(rests).allMatch(nanos -> nanos > 0);

    busy.set(false);
    write(1, 30_000, 60_000);
    Await.until(Duration.ofSeconds(120), "task 1's copy caught up again",
        () -> s.lag(0).get(1) == 0L && s.held().get(1).get("counts") == 59_999L);
    assertThat(rests).as("no rest beside idle containers").hasSize(whileBusy);
  }

  @Test
  void aShareOfTheTimeOutsideOneToAHundredPercentIsRefused() {
    StandbyReplicas s = standbys();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.paceWhile(() -> true, 0))
        .hasMessageContaining("percentage from 1 to 100, not 0");
  }

  @Test
  void aCopyFollowsItsChangelogAndMarksItsFilesWithWhatTheyHold() throws Exception {
    write(1, 0, 5);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(1));

    Await.until(Duration.ofSeconds(10), "task 1's copy marked at offset 4",
        () -> LocalOffsetFile.read(storeDir(1)) == 4);
    assertThat(disk.files(storeDir(1)).get(bytes("k4"))).isNotNull();
    Await.until(Duration.ofSeconds(10), "its lag known", () -> s.lag(0).get(1) == 0L);
    assertThat(metrics.snapshot().get("standby")).containsKey("task-1/counts-lag");

    write(1, 5, 8);
    Await.until(Duration.ofSeconds(10), "task 1's copy marked at offset 7",
        () -> LocalOffsetFile.read(storeDir(1)) == 7);
  }

  @Test
  void takingTheTaskHandsItsCopyOverOpenAndNoneOpensUntilItLeaves() throws Exception {
    write(2, 0, 3);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(2));
    Await.until(Duration.ofSeconds(10), "task 2's copy following", () -> s.lag(0).get(2) == 0L);
    write(2, 3, 6);
    Await.until(Duration.ofSeconds(10), "the new records applied",
        () -> disk.files(storeDir(2)).get(bytes("k5")) != null);

    // A new assignment: a container here takes the task, then the group drops its copy.
    Map<String, OpenCopy> handed = s.activate(2);
    s.want(0, Set.of());
    disk.active.add(storeDir(2)); // from here the engine refuses to open it for the standby
    assertThat(handed).containsOnlyKeys("counts");
    assertThat(handed.get("counts").offset()).as("what the copy held").isEqualTo(5);
    assertThat(handed.get("counts").engine().get(bytes("k5"))).isNotNull();
    assertThat(disk.openNow(storeDir(2))).as("still open, now the task's").isTrue();
    assertThat(disk.opened.get(storeDir(2))).as("not opened again").isEqualTo(1);
    assertThat(metrics.snapshot().getOrDefault("standby", Map.of()))
        .as("no copy follows its changelog now").doesNotContainKey("task-2/counts-lag");
    write(2, 6, 9); // the active's writes, while it runs here

    handed.get("counts").engine().close(); // the task leaves: its container closes its stores
    disk.active.remove(storeDir(2));
    s.deactivate(2);
    s.want(0, Set.of(2)); // and the group wants its copy here again
    Await.until(Duration.ofSeconds(10), "the copy follows again, from its mark",
        () -> LocalOffsetFile.read(storeDir(2)) == 8);
    assertThat(disk.opened.get(storeDir(2))).as("opened twice in all").isEqualTo(2);
    assertThat(disk.misuse.get()).isNull();
  }

  @Test
  void aRestoreOnTheUpdatersThreadTakesItsTasksCopyOpenAtOnce() throws Exception {
    write(2, 0, 3);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(2));
    Await.until(Duration.ofSeconds(10), "task 2's copy following", () -> s.lag(0).get(2) == 0L);

    // A container's restore prepares the task on the updater's thread: no cycle to wait for.
    Map<String, OpenCopy> handed = new ConcurrentHashMap<>();
    updater.restore(() -> handed.putAll(s.activate(2))).get(10, TimeUnit.SECONDS);

    assertThat(handed).containsOnlyKeys("counts");
    assertThat(handed.get("counts").offset()).isEqualTo(2);
    assertThat(disk.opened.get(storeDir(2))).as("not opened again").isEqualTo(1);
    handed.get("counts").engine().close();
    s.deactivate(2);
  }

  @Test
  void aTakeoversRestoreReadsThroughTheCopiesConsumerAndTheOtherCopiesFollowOnAfterIt()
      throws Exception {
    write(1, 0, 3);
    write(2, 0, 3);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(1, 2));
    Await.until(Duration.ofSeconds(10), "both copies following",
        () -> s.lag(0).get(1) == 0L && s.lag(0).get(2) == 0L);
    write(2, 3, 6); // the old owner's last writes, not read by the copy yet perhaps

    // Task 2 fails over here: its container takes the copy and restores the tail through the
    // process's reader, on the updater's thread, as TaskManager does.
    Map<String, OpenCopy> handed = new ConcurrentHashMap<>();
    ChangelogRestorer restorer = new ChangelogRestorer("memory", readers.of("memory"),
        new MemorySystemFactory().admin(new TestSystemContext("memory", "standby", 0, Map.of(),
            Map.of(), metrics)), new io.millrace.core.metrics.SingleWriterCounter(),
        new io.millrace.core.metrics.SingleWriterCounter(), 1);
    updater.restore(() -> {
      handed.putAll(s.activate(2));
      OpenCopy copy = handed.get("counts");
      StoreInstance instance = new StoreInstance(spec, 2, new CachedStore<>("counts of task 2",
          spec, copy.engine(), null), null, null, copy.offset());
      restorer.restore(List.of(instance), new long[] {io.millrace.spi.checkpoint.CheckpointStore.NONE});
    }).get(30, TimeUnit.SECONDS);
    s.want(0, Set.of(1));

    assertThat(handed.get("counts").engine().get(bytes("k5"))).as("the tail restored").isNotNull();
    write(1, 3, 6);
    Await.until(Duration.ofSeconds(10), "task 1's copy follows on after the restore",
        () -> s.held().get(1).get("counts") == 5L);
    assertThat(consumersMade.get()).as("one consumer for the copies and the restore").isEqualTo(1);
    handed.get("counts").engine().close();
    s.deactivate(2);
  }

  @Test
  void aTakingOnAnotherContainerIsServedBetweenTwoBatchesOfARestore() throws Exception {
    write(2, 0, 3);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(2));
    Await.until(Duration.ofSeconds(10), "task 2's copy following", () -> s.lag(0).get(2) == 0L);
    CountDownLatch restoring = new CountDownLatch(1);
    AtomicBoolean restoreMayEnd = new AtomicBoolean();
    // Another container's long restore holds the updater's thread, batch after batch.
    CompletableFuture<Void> longRestore = updater.restore(() -> {
      restoring.countDown();
      while (!restoreMayEnd.get()) {
        updater.betweenBatches();
        Thread.onSpinWait();
      }
    });
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();

    Map<String, OpenCopy> handed = s.activate(2); // a container taking task 2 inline

    assertThat(longRestore).as("handed over while the restore still runs").isNotDone();
    assertThat(handed.get("counts").offset()).isEqualTo(2);
    restoreMayEnd.set(true);
    longRestore.get(10, TimeUnit.SECONDS);
    handed.get("counts").engine().close();
    s.deactivate(2);
  }

  @Test
  void aClaimedTasksCopyWaitsOpenForItsLaterTakingThoughTheGroupDroppedItAsAStandby()
      throws Exception {
    write(2, 0, 3);
    StandbyReplicas s = standbys();
    s.want(0, Set.of(2));
    Await.until(Duration.ofSeconds(10), "task 2's copy following", () -> s.lag(0).get(2) == 0L);

    // The assignment that makes the task active here drops its copy in the same step; the
    // container prepares the task on the state updater, later.
    s.claim(Set.of(2));
    s.want(0, Set.of());
    Await.until(Duration.ofSeconds(10), "the updater thread done with the copy", () ->
        !metrics.snapshot().getOrDefault("standby", Map.of()).containsKey("task-2/counts-lag"));
    Map<String, OpenCopy> handed =
        CompletableFuture.supplyAsync(() -> s.activate(2)).get(10, TimeUnit.SECONDS);
    assertThat(handed).as("handed over open, not closed").containsOnlyKeys("counts");
    assertThat(handed.get("counts").offset()).isEqualTo(2);
    assertThat(disk.opened.get(storeDir(2))).as("not opened again").isEqualTo(1);

    handed.get("counts").engine().close();
    s.deactivate(2);
    assertThat(disk.misuse.get()).isNull();
  }

  @Test
  void aCopyThatHoldsNothingYetIsClosedNotHandedOver() throws Exception {
    StandbyReplicas s = standbys();
    s.want(0, Set.of(3)); // its changelog is empty
    Await.until(Duration.ofSeconds(10), "task 3's copy open", () -> disk.openNow(storeDir(3)));

    assertThat(s.activate(3)).isEmpty();
    assertThat(disk.openNow(storeDir(3))).as("closed: the task's stores open anew").isFalse();
    s.deactivate(3);
  }

  @Test
  void takingATaskWaitsForItsOwnCopyNotForNewCopiesToOpen() throws Exception {
    CountDownLatch slowOpen = new CountDownLatch(1);
    StandbyReplicas s = followingTask1(slowOpen);
    try {
      // A rebalance: this process now keeps a copy of task 2 and takes task 1 as its own.
      s.want(0, Set.of(2));
      CompletableFuture<Map<String, OpenCopy>> taken =
          CompletableFuture.supplyAsync(() -> s.activate(1));

      Await.until(Duration.ofSeconds(10), "task 1 taken while task 2's copy still opens",
          taken::isDone);
      assertThat(slowOpen.getCount()).isEqualTo(1);
      assertThat(taken.join().get("counts").offset()).isEqualTo(2);
      taken.join().get("counts").engine().close();
    } finally {
      slowOpen.countDown();
    }
    Await.until(Duration.ofSeconds(10), "task 2's copy open", () -> disk.openNow(storeDir(2)));
  }

  /**
   * A container gives up taking a task (interrupted) while the updater thread is busy; the copy
   * is handed over after, to nobody: it is closed when the task leaves, and a copy follows
   * again, never two open at once.
   */
  @Test
  void aCopyHandedOverAfterItsTakerGaveUpIsClosedWhenTheTaskLeaves() throws Exception {
    CountDownLatch slowOpen = new CountDownLatch(1);
    StandbyReplicas s = followingTask1(slowOpen);
    s.want(0, Set.of(1, 2));
    Await.until(Duration.ofSeconds(10), "the updater thread busy opening task 2's copy",
        () -> disk.atGate.contains(storeDir(2)));
    AtomicReference<Throwable> gaveUp = new AtomicReference<>();
    Thread taker = new Thread(() -> {
      try {
        s.activate(1);
      } catch (IllegalStateException e) {
        gaveUp.set(e);
      }
    });
    taker.start();
    Await.until(Duration.ofSeconds(10), "the taker waiting",
        () -> taker.getState() == Thread.State.TIMED_WAITING);
    taker.interrupt();
    taker.join();
    assertThat(gaveUp.get()).hasMessageContaining("interrupted");

    slowOpen.countDown();
    Await.until(Duration.ofSeconds(10), "task 1's copy handed over, to nobody",
        () -> !s.held().containsKey(1));
    assertThat(disk.openNow(storeDir(1))).isTrue();
    s.deactivate(1);
    Await.until(Duration.ofSeconds(10), "task 1's copy closed and opened again",
        () -> disk.opened.get(storeDir(1)) == 2 && disk.openNow(storeDir(1)));
    assertThat(disk.misuse.get()).isNull();
  }

  @Test
  void aCopyWithoutAMarkStartsEmptyAndAnotherContainersWishesCountToo() throws Exception {
    write(0, 0, 4);
    write(3, 0, 2);
    // Files left by a task lost without a commit: no mark, so nothing in them is trusted.
    disk.files(storeDir(0)).write(List.of(bytes("stale")), List.of(bytes("x")));
    StandbyReplicas s = standbys();
    s.want(0, Set.of(0));
    s.want(1, Set.of(3));

    Await.until(Duration.ofSeconds(10), "both copies marked",
        () -> LocalOffsetFile.read(storeDir(0)) == 3 && LocalOffsetFile.read(storeDir(3)) == 1);
    assertThat(disk.files(storeDir(0)).get(bytes("stale"))).isNull();
    assertThat(s.lag(1)).containsOnlyKeys(3);

    s.want(1, Set.of());
    Await.until(Duration.ofSeconds(10), "task 3's copy closed", () -> !disk.openNow(storeDir(3)));
    assertThat(disk.openNow(storeDir(0))).isTrue();
  }

  /**
   * Containers take and give back tasks on several threads while the wanted copies change and
   * the changelogs grow: a task's files are never open for a copy while a container holds the
   * task, and every copy ends marked with all its changelog.
   */
  @Test
  void stressNoCopyIsEverOpenWhileItsTaskIsActiveHere() throws Exception {
    StandbyReplicas s = standbys();
    s.want(0, Set.of(0, 1, 2, 3));
    AtomicReference<Throwable> failed = new AtomicReference<>();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    Thread[] containers = new Thread[2];
    for (int c = 0; c < containers.length; c++) {
      int id = c;
      containers[c] = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(id);
        try {
          while (System.nanoTime() < end) {
            int task = id * 2 + random.nextInt(2); // each container its own two tasks
            Map<String, OpenCopy> handed = s.activate(task);
            disk.active.add(storeDir(task));
            write(task, 0, 1 + random.nextInt(3)); // as its active, it writes the changelog
            handed.values().forEach(copy -> copy.engine().close()); // its stores close
            disk.active.remove(storeDir(task));
            s.deactivate(task);
            if (random.nextInt(4) == 0) {
              s.want(id + 1, random.nextBoolean() ? Set.of(task) : Set.of());
            }
          }
        } catch (Throwable e) {
          failed.compareAndSet(null, e);
        }
      }, "container-" + c);
      containers[c].start();
    }
    for (Thread t : containers) {
      t.join();
    }
    assertThat(failed.get()).isNull();
    assertThat(disk.misuse.get()).as("a copy opened while its task was active").isNull();
    for (int task = 0; task < 4; task++) {
      long last = log.size(task) - 1;
      Path d = storeDir(task);
      Await.until(Duration.ofSeconds(10), "task " + task + "'s copy marked at " + last,
          () -> LocalOffsetFile.read(d) == last);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * An engine factory whose engines keep their data per directory after they close, as files
   * would, and that records misuse: an engine opened for a directory that is open already, or
   * that the test says a container holds.
   */
  private static final class DiskEngines implements StorageEngineFactory {
    private final Map<Path, MemoryEngine> files = new ConcurrentHashMap<>();
    private final Map<Path, Boolean> open = new ConcurrentHashMap<>();
    final Map<Path, Integer> opened = new ConcurrentHashMap<>();
    final Set<Path> active = ConcurrentHashMap.newKeySet();
    /** Directories whose open waits until their latch is released. */
    final Map<Path, CountDownLatch> gates = new ConcurrentHashMap<>();
    /** Directories whose open is waiting at its gate now. */
    final Set<Path> atGate = ConcurrentHashMap.newKeySet();
    final AtomicReference<String> misuse = new AtomicReference<>();

    MemoryEngine files(Path dir) {
      return files.computeIfAbsent(dir, d -> new MemoryEngine());
    }

    boolean openNow(Path dir) {
      return open.getOrDefault(dir, false);
    }

    @Override
    public String shortName() {
      return "disk";
    }

    @Override
    public Set<String> storeKeys() {
      return Set.of();
    }

    @Override
    public StorageEngine open(EngineSpec spec, Path dir, EngineResources resources) {
      CountDownLatch gate = gates.get(dir);
      if (gate != null) {
        atGate.add(dir);
        try {
          gate.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          atGate.remove(dir);
        }
      }
      Boolean wasOpen = open.put(dir, true);
      if (active.contains(dir) || Boolean.TRUE.equals(wasOpen)) {
        misuse.compareAndSet(null, dir + " opened while " + (active.contains(dir)
            ? "its task is active here" : "open"));
      }
      opened.merge(dir, 1, Integer::sum);
      if (!java.nio.file.Files.exists(dir.resolve(LocalOffsetFile.NAME))) {
        files.remove(dir); // wiped: StoreFiles.wipe deleted the directory
      }
      try {
        java.nio.file.Files.createDirectories(dir);
      } catch (java.io.IOException e) {
        throw new IllegalStateException(e);
      }
      MemoryEngine data = files(dir);
      return new StorageEngine() {
        @Override
        public byte[] get(byte[] key) {
          return data.get(key);
        }

        @Override
        public void write(List<byte[]> keys, List<byte[]> values) {
          data.write(keys, values);
        }

        @Override
        public StorageEngine.EngineIterator range(byte[] from, byte[] to) {
          return data.range(from, to);
        }

        @Override
        public void sync() {}

        @Override
        public boolean persistent() {
          return true;
        }

        @Override
        public void close() {
          open.put(dir, false);
        }
      };
    }
  }
}
