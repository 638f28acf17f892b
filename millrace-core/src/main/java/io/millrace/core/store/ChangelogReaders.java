package io.millrace.core.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

/**
 * A container's changelog readers, one {@link ChangelogRestorer} per changelog system, each made
 * at its system's first restore and kept (with its consumer) until {@link #close}. They restore
 * detached task instances before their tasks start: each system's with its own reader, the
 * systems at once, so a store on a slow system does not hold up the others.
 */
final class ChangelogReaders implements AutoCloseable {
  private final Function<String, ChangelogRestorer> restorers;
  /** Each system's restorer, made at its first restore. */
  private final Map<String, ChangelogRestorer> bySystem = new ConcurrentHashMap<>();

  /** @param restorers a restorer for the changelogs on a system (called once per system) */
  ChangelogReaders(Function<String, ChangelogRestorer> restorers) {
    this.restorers = restorers;
  }

  /**
   * Restores detached instances from their changelogs. Any one thread (the instances are no
   * other thread's until attached); stops early once {@code cancelled} says so. {@code
   * taskRestored} hears of each task as soon as all of its stores are restored (from a restoring
   * thread), so it can start before the others; a task without changelogs, at once.
   *
   * @return changelog records applied
   */
  long restore(List<DetachedStores> tasks, BooleanSupplier cancelled,
      IntConsumer taskRestored) {
    Map<String, List<StoreInstance>> instances = new LinkedHashMap<>();
    Map<String, List<Long>> checkpointed = new HashMap<>();
    Map<Integer, AtomicInteger> toGo = new HashMap<>();
    List<Integer> ready = new ArrayList<>();
    for (DetachedStores d : tasks) {
      int logged = 0;
      for (int i = 0; i < d.instances().size(); i++) {
        StoreInstance instance = d.instances().get(i);
        if (instance.changelog() != null) {
          String system = instance.spec().changelogSystem();
          instances.computeIfAbsent(system, s -> new ArrayList<>()).add(instance);
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
    return restoreBySystem(instances, checkpointed, cancelled, restored);
  }

  /**
   * One restorer per system, the systems at once: the first on the calling thread, any other on
   * a thread of its own. The first failure stops the others at their next batch and is rethrown
   * once all have ended.
   */
  private long restoreBySystem(Map<String, List<StoreInstance>> instances,
      Map<String, List<Long>> checkpointed, BooleanSupplier cancelled,
      Consumer<StoreInstance> restored) {
    AtomicBoolean failed = new AtomicBoolean();
    BooleanSupplier stop = () -> failed.get() || cancelled.getAsBoolean();
    List<String> systems = new ArrayList<>(instances.keySet());
    Map<String, ChangelogRestorer> restorer = new HashMap<>();
    for (String system : systems) {
      restorer.put(system, bySystem.computeIfAbsent(system, restorers));
    }
    List<CompletableFuture<Long>> others = new ArrayList<>();
    for (String system : systems.subList(Math.min(1, systems.size()), systems.size())) {
      Executor ownThread = runnable -> {
        Thread t = new Thread(runnable, "millrace-restore-" + system);
        t.setDaemon(true);
        t.start();
      };
      others.add(CompletableFuture.supplyAsync(() -> restorer.get(system).restore(
          instances.get(system), offsets(checkpointed.get(system)), stop, restored),
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
        applied += restorer.get(first).restore(instances.get(first),
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

  /** Closes every reader and its consumer: no restore runs any more. */
  @Override
  public void close() {
    for (ChangelogRestorer r : bySystem.values()) {
      r.close();
    }
  }
}
