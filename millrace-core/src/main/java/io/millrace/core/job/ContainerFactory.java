package io.millrace.core.job;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Serde;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.core.checkpoint.ImportedCheckpoints;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.commit.Committer;
import io.millrace.core.config.CoreKeys;
import io.millrace.core.coordinate.LocalCoordinator;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.ContainerParts;
import io.millrace.core.loop.DeadLetters;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.output.OutputRoute;
import io.millrace.core.store.ChangelogPartitions;
import io.millrace.core.store.ChangelogRestorer;
import io.millrace.core.store.SharedChangelogReaders;
import io.millrace.core.store.ChangelogWriter;
import io.millrace.core.store.StandbyReplicas;
import io.millrace.core.store.StateUpdater;
import io.millrace.core.store.StoreFlusher;
import io.millrace.core.store.StoreRegistry;
import io.millrace.core.store.StoreSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds one container from a plan: its consumers (one per input system), its producers and
 * output routes, its stores, its commit protocol, and the {@link TaskBuilder} that makes the
 * tasks its membership gives it.
 */
public final class ContainerFactory {
  private ContainerFactory() {}

  /**
   * Builds container {@code id} of the plan, whose tasks {@code coordinator} decides.
   *
   * @param standbys the process's standby copies, or null
   * @param updater the process's state updater (it restores every task the container takes)
   * @param readers the process's changelog readers, used by the updater's thread
   */
  public static Container build(JobPlan plan, int id, Clock clock, JobCoordinator coordinator,
      StandbyReplicas standbys, StateUpdater updater, SharedChangelogReaders readers) {
    Map<String, SystemProducer> producers = new LinkedHashMap<>();
    Map<SystemProducer, int[]> producerIndices = new HashMap<>();
    Map<String, OutputRoute> routes = new HashMap<>();
    for (String output : plan.outputs()) {
      StreamInfo info = plan.streams().get(output);
      SystemProducer producer = producer(plan, id, info.system(), producers);
      int index = producerIndices.computeIfAbsent(producer, p -> new int[1])[0]++;
      int count = plan.partitionCounts().get(output);
      producer.register(index, info.spec(), count);
      routes.put(output, new OutputRoute(output, producer, index, count));
    }
    Map<String, SystemConsumer> consumers = new LinkedHashMap<>();
    for (String input : plan.inputs()) {
      String system = plan.streams().get(input).system();
      consumers.computeIfAbsent(system, s -> plan.factories().get(s)
          .consumer(context(plan, s, id)));
    }
    StoreRegistry stores = stores(plan, id, producers, producerIndices, readers);
    DeadLetters deadLetters = plan.deadLetterStream() == null ? null
        : deadLetters(plan, routes.get(plan.deadLetterStream()));
    List<SystemProducer> producerList = new ArrayList<>(producers.values());
    // A coordinator that fences members keeps the checkpoints itself (Kafka: the group's offsets).
    // Offsets imported from another runtime lie under whichever store the job keeps its own in.
    CheckpointStore checkpoints = coordinator.checkpoints()
        .map(own -> plan.checkpointStore() instanceof ImportedCheckpoints imported
            ? imported.over(own) : own)
        .orElse(plan.checkpointStore());
    Committer committer = new Committer(id, producerList,
        stores == null ? null : stores.commits(), checkpoints,
        plan.metrics().counter("container-" + id, "commits"),
        plan.config().getBoolean(CoreKeys.COMMIT_BACKGROUND, true),
        plan.settings().exactlyOnce());
    plan.metrics().gauge("container-" + id, "last-commit-epoch-ms",
        committer::lastCommitEpochMillis);
    boolean dispatched = AsyncStreamTask.class.isAssignableFrom(
        plan.taskConstructor().getDeclaringClass()) || plan.settings().async().poolSize() > 0;
    ContainerParts parts = new ContainerParts(id, plan.settings(), clock, plan.metrics(),
        new ArrayList<>(consumers.values()), producerList, committer, plan.errorPolicy(),
        deadLetters, stores, dispatched, coordinator,
        new TaskBuilder(plan, id, routes, consumers, stores, checkpoints,
            plan.coordinatorFactory() instanceof LocalCoordinator.Factory, standbys,
            committer.counts()),
        TimeUnit.MILLISECONDS.toNanos(Math.min(plan.shutdownMillis(),
            plan.settings().async().callbackTimeoutNanos() / 1_000_000)), updater);
    return new Container(id, new RunLoop(parts), java.util.Collections.unmodifiableMap(consumers));
  }

  private static SystemProducer producer(JobPlan plan, int id, String system,
      Map<String, SystemProducer> producers) {
    return producers.computeIfAbsent(system, s -> plan.factories().get(s)
        .producer(context(plan, s, id)));
  }

  /**
   * The container's stores, with each changelog registered as an output of its system's producer
   * now, before the producers start (one index per store; a task writes its own partition);
   * null without stores.
   */
  private static StoreRegistry stores(JobPlan plan, int id,
      Map<String, SystemProducer> producers, Map<SystemProducer, int[]> producerIndices,
      SharedChangelogReaders readers) {
    if (plan.stores().isEmpty()) {
      return null;
    }
    Map<String, Integer> changelogIndex = new HashMap<>();
    for (StoreSpec spec : plan.stores()) {
      if (spec.hasChangelog()) {
        SystemProducer producer = producer(plan, id, spec.changelogSystem(), producers);
        int index = producerIndices.computeIfAbsent(producer, p -> new int[1])[0]++;
        producer.register(index, spec.changelogSpec(), plan.taskCount());
        changelogIndex.put(spec.name(), index);
      }
    }
    // With a core to spare, RocksDB writes and Kafka changelog sends are done off the loop thread.
    StoreFlusher flusher = Runtime.getRuntime().availableProcessors() > 1
        ? StoreFlusher.threaded("millrace-" + plan.jobName() + "-store-flush-" + id)
        : StoreFlusher.inline();
    ChangelogPartitions partitions = plan.changelogPartitions();
    StoreRegistry.Changelogs changelogs = new StoreRegistry.Changelogs() {
      @Override
      public ChangelogWriter writer(StoreSpec spec, int partition) {
        return new ChangelogWriter(producers.get(spec.changelogSystem()),
            changelogIndex.get(spec.name()), partition);
      }

      @Override
      public int partitionOf(int taskNumber) {
        return partitions.of(taskNumber);
      }
    };
    int restoreThreads = plan.config().getInt(CoreKeys.RESTORE_THREADS,
        Runtime.getRuntime().availableProcessors(), 1);
    int expectedTasks = (plan.taskCount() + plan.containerCount() - 1) / plan.containerCount();
    return StoreRegistry.create(plan.stores(), plan.storesDir(), plan.config().asMap(),
        expectedTasks, changelogs,
        system -> new ChangelogRestorer(system, readers.of(system), plan.admins().get(system),
            plan.metrics().counter("container-" + id, "store-restore-records"),
            plan.metrics().counter("container-" + id, "store-restore-ms"), restoreThreads),
        flusher, plan.settings().exactlyOnce());
  }

  /**
   * The process's changelog readers, shared by the restores and the standby copies. Their
   * consumers are the job's own, as a container after the last one (its client ids and metrics
   * say so).
   */
  static SharedChangelogReaders changelogReaders(JobPlan plan) {
    int readerId = plan.containerCount();
    return new SharedChangelogReaders(
        system -> plan.factories().get(system).consumer(context(plan, system, readerId)));
  }

  /**
   * The process's standby and warm-up copies (tasks shared among processes, and a store with a
   * changelog), or null; the process's state updater keeps them, reading through {@code readers}.
   */
  static StandbyReplicas standbys(JobPlan plan, SharedChangelogReaders readers) {
    if (plan.coordinatorFactory() instanceof LocalCoordinator.Factory
        || plan.stores().stream().noneMatch(StoreSpec::hasChangelog)) {
      return null;
    }
    long commitNanos = plan.settings().commitNanos();
    // Marked as often as the active commits (at least every second, at most every 30 s): a
    // takeover replays about one commit interval of the changelog.
    long markNanos = Math.max(TimeUnit.SECONDS.toNanos(1),
        Math.min(TimeUnit.SECONDS.toNanos(30), commitNanos > 0 ? commitNanos : Long.MAX_VALUE));
    return new StandbyReplicas(plan.stores(), plan.storesDir(), plan.config().asMap(),
        plan.stores().size() * plan.taskCount(),
        readers::of,
        plan.metrics(), markNanos, plan.changelogPartitions()::of);
  }

  static DefaultSystemContext context(JobPlan plan, String system, int id) {
    return new DefaultSystemContext(system, plan.jobName(), id, plan.config(), plan.metrics());
  }

  @SuppressWarnings("unchecked")
  private static DeadLetters deadLetters(JobPlan plan, OutputRoute route) {
    Map<String, Serde<Object>> inputKeySerdes = new LinkedHashMap<>();
    for (String input : plan.inputs()) {
      inputKeySerdes.put(input, (Serde<Object>) plan.streams().get(input).spec().keySerde());
    }
    return new DeadLetters(route,
        (Serde<Object>) plan.streams().get(plan.deadLetterStream()).spec().keySerde(),
        inputKeySerdes);
  }
}
