package io.millrace.core.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * A container's changelog restorers, one {@link ChangelogRestorer} per changelog system, each made
 * at its system's first restore and kept. They restore detached task
 * instances before their tasks start, one system after another on the calling thread (the
 * process's state updater's, which owns the systems' shared readers: a second thread on a
 * reader would race the copies' reading of it).
 */
final class ChangelogRestorers {
  private final Function<String, ChangelogRestorer> restorers;
  /** Each system's restorer, made at its first restore. */
  private final Map<String, ChangelogRestorer> bySystem = new ConcurrentHashMap<>();

  /** @param restorers a restorer for the changelogs on a system (called once per system) */
  ChangelogRestorers(Function<String, ChangelogRestorer> restorers) {
    this.restorers = restorers;
  }

  /**
   * Restores detached instances from their changelogs. The thread that owns the systems'
   * readers (the instances are no other thread's until attached); stops early once {@code cancelled} says so. {@code
   * taskRestored} hears of each task as soon as all of its stores are restored (from the calling
   * thread or a restore lane's), so it can start before the others; a task without changelogs, at once.
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
   * Each system's restorer in turn; the first failure stops the restore (the systems after it
   * are not read) and is rethrown.
   */
  private long restoreBySystem(Map<String, List<StoreInstance>> instances,
      Map<String, List<Long>> checkpointed, BooleanSupplier cancelled,
      Consumer<StoreInstance> restored) {
    long applied = 0;
    for (Map.Entry<String, List<StoreInstance>> system : instances.entrySet()) {
      if (cancelled.getAsBoolean()) {
        break;
      }
      ChangelogRestorer restorer = bySystem.computeIfAbsent(system.getKey(), restorers);
      applied += restorer.restore(system.getValue(), offsets(checkpointed.get(system.getKey())),
          cancelled, restored);
    }
    return applied;
  }

  private static long[] offsets(List<Long> checkpointed) {
    return checkpointed.stream().mapToLong(Long::longValue).toArray();
  }
}
