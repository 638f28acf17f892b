package io.millrace.core.store;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Commit-time syncs: persistent engines at once, others inline, failures surfaced. */
class EngineSyncTest {
  /** An engine whose sync runs a given action. */
  private static StorageEngine engine(boolean persistent, Runnable onSync) {
    return new WatchedEngine() {
      @Override
      public void sync() {
        onSync.run();
      }

      @Override
      public boolean persistent() {
        return persistent;
      }
    };
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void persistentEnginesSyncAtOnceAndEveryEngineIsSyncedBeforeItReturns() {
    int n = 3;
    CountDownLatch allStarted = new CountDownLatch(n);
    AtomicInteger synced = new AtomicInteger();
    List<StorageEngine> engines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      engines.add(engine(true, () -> {
        allStarted.countDown();
        try {
          // Returns only once every sync has started: they cannot have run one by one.
          assertThat(allStarted.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        synced.incrementAndGet();
      }));
    }
    engines.add(engine(false, synced::incrementAndGet));
    try (EngineSync sync = new EngineSync(engines, n)) {
      for (int commit = 1; commit <= 3; commit++) {
        sync.syncAll();
        assertThat(synced).hasValue(commit * (n + 1));
      }
    }
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aFailedSyncFailsTheCommitAfterTheOthersFinish() {
    AtomicInteger synced = new AtomicInteger();
    List<StorageEngine> engines = List.of(
        engine(true, synced::incrementAndGet),
        engine(true, () -> {
          throw new IllegalStateException("store counts: cannot flush RocksDB's memtables");
        }),
        engine(true, synced::incrementAndGet));
    try (EngineSync sync = new EngineSync(engines, 2)) {
      assertThatThrownBy(sync::syncAll).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("store counts: cannot flush");
      assertThat(synced).hasValue(2);
    }
  }

  @Test
  void oneProcessorSyncsInline() {
    List<String> threads = new ArrayList<>();
    List<StorageEngine> engines = List.of(
        engine(true, () -> threads.add(Thread.currentThread().getName())),
        engine(true, () -> threads.add(Thread.currentThread().getName())));
    try (EngineSync sync = new EngineSync(engines, 1)) {
      sync.syncAll();
    }
    assertThat(threads).containsOnly(Thread.currentThread().getName());
  }
}
