package io.millrace.core.store;
import io.millrace.spi.engine.StorageEngine;
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
  private final int threads;
  private volatile ExecutorService pool;
  /** The engines as of the last update: a commit in the background syncs the ones it began with. */
  private volatile Engines current = new Engines(List.of(), List.of());

  /** A container's engines at one moment: those with local files, and the others. */
  record Engines(List<StorageEngine> local, List<StorageEngine> others) {}

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
    List<StorageEngine> local = new ArrayList<>();
    List<StorageEngine> others = new ArrayList<>();
    for (StorageEngine engine : engines) {
      (engine.persistent() ? local : others).add(engine);
    }
    current = new Engines(List.copyOf(local), List.copyOf(others));
    if (pool == null && Math.min(threads, local.size()) >= 2) {
      AtomicInteger n = new AtomicInteger();
      pool = Executors.newFixedThreadPool(threads, r -> {
        Thread t = new Thread(r, "millrace-store-sync-" + n.getAndIncrement());
        t.setDaemon(true);
        return t;
      });
    }
  }

  /** The engines as of the last update. */
  Engines current() {
    return current;
  }

  /** Syncs every engine; throws the first failure once all are done. */
  void syncAll() {
    syncAll(current);
  }

  /**
   * Syncs those engines; throws the first failure once all are done. Any one thread at a time
   * (a commit's, on the loop or in the background).
   */
  void syncAll(Engines engines) {
    for (StorageEngine engine : engines.others()) {
      engine.sync();
    }
    eachLocal(engines.local(), StorageEngine::sync);
  }

  /**
   * Applies what the staging engines among the local ones sealed (exactly-once, once the commit's
   * transaction committed), at once on the pool; throws the first failure once all are done.
   */
  void applyAll() {
    eachLocal(current.local(), engine -> {
      if (engine instanceof StagedEngine staged) {
        staged.applySealed();
      }
    });
  }

  /**
   * Seals what each staging engine among the local ones staged: the commit's transaction holds
   * exactly these writes, those of the flusher's batches up to {@code flushedThrough}. One after
   * another: a reference swap each.
   */
  void sealAll(long flushedThrough) {
    for (StorageEngine engine : current.local()) {
      if (engine instanceof StagedEngine staged) {
        staged.seal(flushedThrough);
      }
    }
  }

  /**
   * Syncs the engines underneath the staging ones (and the others): only what commits applied,
   * never a write sealed or staged since.
   */
  void syncCommitted() {
    for (StorageEngine engine : current.others()) {
      engine.sync();
    }
    eachLocal(current.local(), engine ->
        (engine instanceof StagedEngine staged ? staged.engine() : engine).sync());
  }

  private void eachLocal(List<StorageEngine> local,
      java.util.function.Consumer<StorageEngine> action) {
    ExecutorService pool = this.pool;
    if (pool == null) {
      for (StorageEngine engine : local) {
        action.accept(engine);
      }
      return;
    }
    List<Future<?>> pending = new ArrayList<>(local.size());
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
