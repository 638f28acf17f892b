package io.millrace.core.job;

import io.millrace.api.CommitProgress;
import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValueStore;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.loop.PartitionSpec;
import io.millrace.core.loop.TaskInstance;
import io.millrace.core.loop.TaskScheduler;
import io.millrace.core.loop.TaskSource;
import io.millrace.core.loop.TaskSpec;
import io.millrace.core.output.OutputRoute;
import io.millrace.core.output.TaskCollector;
import io.millrace.core.store.DetachedStores;
import io.millrace.core.store.OpenCopy;
import io.millrace.core.store.StandbyReplicas;
import io.millrace.core.store.StoreRegistry;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * Builds the tasks one container takes, from the job's plan: for each, its input partitions
 * resolved against its checkpoint, its stores opened and restored, its collector and context, a
 * new object of the job's task class. Under a static assignment ({@code job.coordinator=local})
 * the tasks resume from the checkpoint the plan read; when tasks move between processes, every
 * assignment reads the checkpoint again, since the previous owner committed them just before.
 */
final class TaskBuilder implements TaskSource {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(TaskBuilder.class);
  /** Where the inputs' heads of moved tasks are looked up beside the rest of a take. */
  private static final Executor LOOKUPS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "millrace-input-heads");
    t.setDaemon(true);
    return t;
  });
  private final JobPlan plan;
  private final int containerId;
  private final Map<String, OutputRoute> routes;
  private final Map<String, SystemConsumer> consumers;
  private final StoreRegistry stores;
  private final CheckpointStore checkpoints;
  private final boolean staticAssignment;
  /** The process's standby copies, or null without {@code job.standby.replicas}. */
  private final StandbyReplicas standbys;

  /** The container's commit counters, as its tasks read them. */
  private final CommitProgress commits;

  /**
   * A builder for one container.
   *
   * @param routes the container's outputs by stream id
   * @param consumers the container's consumer of each input system
   * @param stores the container's stores, or null
   * @param checkpoints where the job's checkpoints are read from when tasks arrive
   * @param staticAssignment whether the tasks never move (the plan's checkpoint is theirs)
   * @param standbys the process's standby copies, or null
   * @param commits the container's commit counters, as its tasks read them
   */
  TaskBuilder(JobPlan plan, int containerId, Map<String, OutputRoute> routes,
      Map<String, SystemConsumer> consumers, StoreRegistry stores, CheckpointStore checkpoints,
      boolean staticAssignment, StandbyReplicas standbys, CommitProgress commits) {
    this.standbys = standbys;
    this.commits = commits;
    this.plan = plan;
    this.containerId = containerId;
    this.routes = routes;
    this.consumers = consumers;
    this.stores = stores;
    this.checkpoints = checkpoints;
    this.staticAssignment = staticAssignment;
  }

  @Override
  public List<TaskSpec> take(Set<Integer> taskNumbers) {
    Taking taking = prepare(taskNumbers);
    try {
      taking.restore(() -> false, n -> { });
    } catch (RuntimeException e) {
      taking.abandon();
      throw e;
    }
    taking.attach(taskNumbers);
    return taking.specs();
  }

  @Override
  public void claim(Set<Integer> taskNumbers) {
    if (standbys != null) {
      // The same assignment drops the tasks' standby copies here: without the claim the standby
      // thread would close them before the restore thread's prepare could take them open.
      standbys.claim(taskNumbers);
    }
  }

  @Override
  public void unclaim(Set<Integer> taskNumbers) {
    abandon(taskNumbers, List.of()); // nothing opened yet: only the claims go
  }

  @Override
  public Taking prepare(Set<Integer> taskNumbers) {
    long began = System.nanoTime();
    // Tasks that moved here: their inputs' heads are asked for while the checkpoint is read and
    // the standby copies handed over (two round trips to the brokers, 80-170 ms each on the
    // failover benchmark's busy machine, one after the other before).
    CompletableFuture<Map<String, Map<Integer, StreamMetadata>>> headsAhead = staticAssignment
        ? null : CompletableFuture.supplyAsync(() -> inputHeads(taskNumbers), LOOKUPS);
    List<TaskSpec> tasks = new ArrayList<>();
    List<DetachedStores> detached = new ArrayList<>();
    Map<Integer, Map<String, OpenCopy>> handedOver = new HashMap<>();
    try {
      Map<StreamPartition, Long> checkpoint = staticAssignment ? plan.checkpoint()
          : checkpoints.read(taskNumbers);
      long read = System.nanoTime();
      if (standbys != null) {
        // A standby copy here is handed over open: the stores take its engines as they are and
        // replay only the changelog's tail.
        standbys.activate(taskNumbers).forEach((number, copies) ->
            handedOver.put(number, new HashMap<>(copies)));
      }
      long copiesClosed = System.nanoTime();
      Map<String, Map<Integer, StreamMetadata>> heads = headsAhead == null
          ? inputHeads(taskNumbers) : joined(headsAhead);
      long headsKnown = System.nanoTime();
      for (int number : taskNumbers) {
        tasks.add(build(number, checkpoint, heads, detached,
            handedOver.getOrDefault(number, new HashMap<>())));
      }
      long built = System.nanoTime();
      if (stores != null) {
        plan.metrics().counter("container-" + containerId, "store-open-ms")
            .inc((built - copiesClosed) / 1_000_000);
      }
      if (!staticAssignment) {
        // Where a takeover's time goes before any restore: each step is a different fix.
        LOG.info("container {}: task(s) {} prepared in {} ms: checkpoints {} ms, standby copies "
                + "handed over {} ms, input heads {} ms more, tasks built and stores opened {} ms",
            containerId, taskNumbers, (built - began) / 1_000_000, (read - began) / 1_000_000,
            (copiesClosed - read) / 1_000_000, (headsKnown - copiesClosed) / 1_000_000,
            (built - headsKnown) / 1_000_000);
      }
    } catch (RuntimeException | Error e) { // (an engine's native library failing to load, say)
      closeUnused(handedOver); // before the copies may open the same files again
      abandon(taskNumbers, detached);
      throw e;
    }
    closeUnused(handedOver); // (none: the stores took every one)
    return new Taking() {
      /** Tasks attached so far (loop thread). */
      private final Set<Integer> attached = new HashSet<>();

      @Override
      public List<TaskSpec> specs() {
        return tasks;
      }

      @Override
      public boolean needsRestore() {
        return detached.stream().anyMatch(DetachedStores::logged);
      }

      @Override
      public void restore(BooleanSupplier cancelled, IntConsumer restored) {
        if (stores != null) {
          // Before init: a task may read its stores there.
          stores.restoreDetached(detached, cancelled, restored);
        } else {
          taskNumbers.forEach(restored::accept);
        }
      }

      @Override
      public void attach(Set<Integer> numbers) {
        if (stores != null) {
          detached.stream().filter(d -> numbers.contains(d.taskNumber()))
              .forEach(stores::attach);
        }
        attached.addAll(numbers);
      }

      @Override
      public void abandon() {
        Set<Integer> rest = new TreeSet<>(taskNumbers);
        rest.removeAll(attached);
        TaskBuilder.this.abandon(rest, detached.stream()
            .filter(d -> !attached.contains(d.taskNumber())).toList());
      }
    };
  }

  /** The lookup's result, or what it threw. */
  private static <T> T joined(CompletableFuture<T> lookup) {
    try {
      return lookup.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("looking up the inputs' heads failed: " + e.getCause(),
          e.getCause());
    }
  }

  /** Closes the engines standby copies handed over that no store took. */
  private static void closeUnused(Map<Integer, Map<String, OpenCopy>> copies) {
    copies.values().forEach(byStore -> byStore.values().forEach(copy -> {
      try {
        copy.engine().close();
      } catch (RuntimeException e) {
        LOG.warn("a standby copy's engine failed to close", e);
      }
    }));
  }

  /** Closes what a take opened and frees the tasks for standby copies again. */
  private void abandon(Set<Integer> taskNumbers, List<DetachedStores> detached) {
    if (stores != null) {
      detached.forEach(stores::closeDetached);
    }
    if (standbys != null) {
      taskNumbers.forEach(standbys::deactivate);
    }
  }

  /**
   * The metadata of every input partition of the tasks, one request per input stream (not one
   * per partition) and read now: a bootstrap input reads up to the head seen here.
   */
  private Map<String, Map<Integer, StreamMetadata>> inputHeads(Set<Integer> taskNumbers) {
    Map<String, Map<Integer, StreamMetadata>> heads = new HashMap<>();
    for (String input : plan.inputs()) {
      int count = plan.partitionCounts().get(input);
      List<Integer> partitions = taskNumbers.stream().filter(t -> t < count).toList();
      if (!partitions.isEmpty()) {
        StreamInfo info = plan.streams().get(input);
        heads.put(input, plan.admins().get(info.system()).metadata(info.spec(), partitions));
      }
    }
    return heads;
  }

  private TaskSpec build(int number, Map<StreamPartition, Long> checkpoint,
      Map<String, Map<Integer, StreamMetadata>> heads, List<DetachedStores> detached,
      Map<String, OpenCopy> handedOver) {
    String name = "Partition " + number;
    List<StreamPartition> mine = new ArrayList<>();
    List<PartitionSpec> inputs = new ArrayList<>();
    for (String input : plan.inputs()) {
      if (plan.partitionCounts().get(input) > number) {
        StreamInfo info = plan.streams().get(input);
        StreamPartition sp = new StreamPartition(info.system(), input, number);
        mine.add(sp);
        inputs.add(partitionSpec(sp, info, consumers.get(info.system()), checkpoint,
            heads.get(input).get(number)));
      }
    }
    Object user = newTask(); // before its stores open: a constructor that throws leaks nothing
    Map<String, KeyValueStore<?, ?>> taskStores = Map.of();
    if (stores != null) {
      DetachedStores opened = stores.openDetached(number, name, checkpoint,
          handedOver);
      detached.add(opened);
      taskStores = opened.stores();
    }
    TaskCollector collector = new TaskCollector(routes, name);
    List<Runnable> idleActions = new ArrayList<>();
    TaskScheduler scheduler = new TaskScheduler();
    TaskContextImpl context = new TaskContextImpl(name, number, plan.taskCount(),
        List.copyOf(mine),
        plan.config().asMap(), plan.metrics(), collector, idleActions, taskStores, scheduler,
        commits);
    TaskInstance task = new TaskInstance(name, number, user, collector, context,
        mine.size(), idleActions, scheduler);
    return new TaskSpec(task, inputs);
  }

  /**
   * Resolves where an input partition starts: after its checkpointed offset, or where its
   * stream's {@code offset.default} says; and what bootstrap and progress need.
   */
  private PartitionSpec partitionSpec(StreamPartition sp, StreamInfo info,
      SystemConsumer consumer, Map<StreamPartition, Long> checkpoint, StreamMetadata meta) {
    Long saved = info.reset() ? null : checkpoint.get(sp);
    StartPosition start = saved == null ? info.offsetDefault() : StartPosition.after(saved);
    if (!staticAssignment) {
      LOG.info("container {}: {} resumes {}", containerId, sp.stream() + "/" + sp.partition(),
          saved == null ? "at its " + start.kind().name().toLowerCase(java.util.Locale.ROOT)
              + " offset (no checkpoint)" : "after offset " + saved);
    }
    // A bootstrap partition read from "upcoming" has nothing before its head to read first;
    // waiting for it would hold back every other input for good.
    boolean bootstrap = info.bootstrap() && start.kind() != StartPosition.Kind.UPCOMING;
    long progressStart = switch (start.kind()) {
      case AFTER -> saved + 1;
      case OLDEST -> Math.max(0, meta.oldest());
      case UPCOMING -> meta.upcoming();
    };
    return new PartitionSpec(sp, info.spec(), consumer, start,
        saved == null ? CheckpointStore.NONE : saved, info.priority(), info.pollIntervalNanos(),
        bootstrap, meta.newest(), progressStart, meta.bounded() ? meta.upcoming() : -1);
  }

  @Override
  public void release(int taskNumber, boolean committed) {
    if (stores != null) {
      stores.closeTask(taskNumber, committed);
    }
    if (standbys != null) {
      standbys.deactivate(taskNumber); // its files are free: a standby copy may follow them
    }
  }

  @Override
  public void standbys(Set<Integer> taskNumbers) {
    if (standbys != null) {
      standbys.want(containerId, taskNumbers);
    }
  }

  @Override
  public Map<Integer, Long> standbyLag() {
    return standbys == null ? Map.of() : standbys.lag(containerId);
  }

  @Override
  public Map<Integer, Map<String, Long>> localState() {
    Map<Integer, Map<String, Long>> state = stores == null ? Map.of() : stores.localState();
    if (standbys == null) {
      return state;
    }
    // A copy open here holds more than its files' last mark says, and closes marked with it.
    Map<Integer, Map<String, Long>> merged = new java.util.TreeMap<>();
    state.forEach((task, offsets) -> merged.put(task, new java.util.TreeMap<>(offsets)));
    standbys.held().forEach((task, offsets) -> offsets.forEach((store, offset) ->
        merged.computeIfAbsent(task, t -> new java.util.TreeMap<>()).merge(store, offset,
            Math::max)));
    return merged;
  }

  private Object newTask() {
    try {
      return plan.taskConstructor().newInstance();
    } catch (InvocationTargetException e) {
      throw new ConfigException("task.class " + plan.taskConstructor().getDeclaringClass()
          .getName() + " threw in its constructor: " + e.getCause());
    } catch (InstantiationException | IllegalAccessException e) {
      throw new ConfigException("cannot create task.class " + plan.taskConstructor()
          .getDeclaringClass().getName() + ": " + e);
    }
  }
}
