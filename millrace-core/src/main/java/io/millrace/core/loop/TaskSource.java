package io.millrace.core.loop;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Where a container's tasks come from when it takes them, and where their resources go when it
 * gives them up: the job's half of a reassignment (stores, checkpoints, task objects), so the loop
 * needs to know nothing of the job's configuration.
 */
public interface TaskSource {
  /**
   * Builds tasks the container takes: opens their stores and restores them (local files plus the
   * changelog tail, or the whole changelog), reads their checkpoints, and resolves where each
   * input partition resumes.
   */
  List<TaskSpec> take(Set<Integer> taskNumbers);

  /**
   * Builds tasks the container takes, with their stores open but not restored: the container
   * may restore them on another thread while its other tasks run. Any one thread at a time: the
   * container calls it on the state updater's thread while it runs other tasks. Default: {@link #take},
   * whose stores are restored already.
   */
  default Taking prepare(Set<Integer> taskNumbers) {
    List<TaskSpec> specs = take(taskNumbers);
    return new Taking() {
      @Override
      public List<TaskSpec> specs() {
        return specs;
      }

      @Override
      public void restore(BooleanSupplier cancelled, IntConsumer restored) {
        specs.forEach(spec -> restored.accept(spec.task().number()));
      }

      @Override
      public void attach(Set<Integer> taskNumbers) {}

      @Override
      public void abandon() {
        for (TaskSpec spec : specs) {
          release(spec.task().number(), true);
        }
      }
    };
  }

  /**
   * The container will take these tasks, preparing them on another thread: what of theirs this
   * process holds (a standby copy) is kept for {@link #prepare} from now on. Loop thread, before
   * {@link #prepare}; the taking's {@link Taking#abandon} (or a failed prepare) lets it go.
   */
  default void claim(Set<Integer> taskNumbers) {}

  /**
   * Lets go of what {@link #claim} kept for tasks the container gives up before it prepared
   * them. Any thread.
   */
  default void unclaim(Set<Integer> taskNumbers) {}

  /** Tasks being taken, between {@link #prepare} and their start. */
  interface Taking {
    /** The tasks, ready to run once their stores are restored and attached. */
    List<TaskSpec> specs();

    /** Whether {@link #restore} has changelogs to read; if not, the tasks may start at once. */
    default boolean needsRestore() {
      return false;
    }

    /**
     * Restores their stores (local files plus the changelog's tail, or all of it); stops early
     * once {@code cancelled} says so. Any one thread. {@code restored} hears of each task as soon
     * as its own stores are restored (from any thread): it may start before the others.
     */
    void restore(BooleanSupplier cancelled, IntConsumer restored);

    /**
     * Hands the restored stores of some of the tasks to the container's commits. Loop thread,
     * once {@link #restore} said they are restored.
     */
    void attach(Set<Integer> taskNumbers);

    /**
     * Gives up the tasks not attached yet (they left while restoring, or the restore failed).
     * Loop thread.
     */
    void abandon();
  }

  /**
   * A task left the container: closes its stores. {@code committed}: it was revoked after a
   * commit; otherwise it was lost, and its stores' local files are not to be trusted as they are.
   */
  void release(int taskNumber, boolean committed);

  /**
   * What this process holds on local disk: for each task with local store files, the changelog
   * offset they hold, per store.
   */
  Map<Integer, Map<String, Long>> localState();

  /** The tasks this container keeps standby copies of now (see MembershipListener#standbys). */
  default void standbys(Set<Integer> taskNumbers) {}

  /** Each standby copy's lag in changelog records (-1 while not known). */
  default Map<Integer, Long> standbyLag() {
    return Map.of();
  }
}
