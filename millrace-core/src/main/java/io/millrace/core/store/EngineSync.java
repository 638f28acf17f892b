package io.millrace.core.store;
import io.millrace.api.store.engine.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Syncs a container's engines at commit. Engines that keep local files sync on a small pool, all
 * at once, because a RocksDB sync waits for its memtables to be written to disk: one after the
 * other, a commit of 8 tasks waits for 8 flushes in a row while the other cores idle. Engines
 * with nothing on disk (memory) sync here.
 */
final class EngineSync implements AutoCloseable {
  private final List<StorageEngine> local = new ArrayList<>();
  private final List<StorageEngine> others = new ArrayList<>();
  private final List<Future<?>> pending = new ArrayList<>();
  private final int threads;
  private ExecutorService pool;

  /**
   * @param engines every engine of the container
   * @param threads the most syncs at once (the processors)
   */
  EngineSync(List<StorageEngine> engines, int threads) {
    this.threads = threads;
    update(engines);
  }

  /** The container's engines changed (a task came or went). */
  void update(List<StorageEngine> engines) {
    local.clear();
    others.clear();
    for (StorageEngine engine : engines) {
      (engine.persistent() ? local : others).add(engine);
    }
    if (pool == null && Math.min(threads, local.size()) >= 2) {
      AtomicInteger n = new AtomicInteger();
      pool = Executors.newFixedThreadPool(threads, r -> {
        Thread t = new Thread(r, "millrace-store-sync-" + n.getAndIncrement());
        t.setDaemon(true);
        return t;
      });
    }
  }

  /** Syncs every engine; throws the first failure once all are done. */
  void syncAll() {
    for (StorageEngine engine : others) {
      engine.sync();
    }
    eachLocal(StorageEngine::sync);
  }

  /**
   * Applies what the staging engines among the local ones hold (exactly-once, once the commit's
   * transaction committed), at once on the pool; throws the first failure once all are done.
   */
  void applyAll() {
    eachLocal(engine -> {
      if (engine instanceof StagedEngine staged) {
        staged.apply();
      }
    });
  }

  private void eachLocal(java.util.function.Consumer<StorageEngine> action) {
    if (pool == null) {
      for (StorageEngine engine : local) {
        action.accept(engine);
      }
      return;
    }
    pending.clear();
    for (StorageEngine engine : local) {
      pending.add(pool.submit(() -> action.accept(engine)));
    }
    RuntimeException failure = null;
    for (Future<?> sync : pending) {
      try {
        sync.get();
      } catch (ExecutionException e) {
        if (failure == null) {
          failure = e.getCause() instanceof RuntimeException r ? r
              : new IllegalStateException("a store failed to sync or apply its writes",
                  e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while syncing stores", e);
      }
    }
    pending.clear();
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
