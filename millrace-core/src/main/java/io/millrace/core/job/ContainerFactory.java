package io.millrace.core.job;

import io.millrace.api.StreamPartition;
import io.millrace.api.system.StartPosition;
import io.millrace.api.system.StreamMetadata;
import io.millrace.api.system.SystemConsumer;
import io.millrace.api.system.SystemProducer;
import io.millrace.api.checkpoint.CheckpointStore;
import io.millrace.api.config.ConfigException;
import io.millrace.core.config.CoreKeys;
import io.millrace.api.AsyncStreamTask;
import io.millrace.core.commit.Committer;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.ContainerParts;
import io.millrace.core.loop.PartitionSpec;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.loop.TaskInstance;
import io.millrace.core.loop.TaskSpec;
import io.millrace.core.output.OutputRoute;
import io.millrace.core.output.TaskCollector;
import io.millrace.core.store.ChangelogRestorer;
import io.millrace.core.store.ChangelogWriter;
import io.millrace.core.store.ContainerStores;
import io.millrace.core.store.StoreFlusher;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds one container from a plan: gives each of its input partitions a dense index, creates its
 * consumers, producers, output routes and tasks, and resolves where each partition starts.
 */
public final class ContainerFactory {
  private ContainerFactory() {}

  /** Builds container {@code id} of the plan. */
  public static Container build(JobPlan plan, int id, Clock clock) {
    Map<String, SystemConsumer> consumers = new LinkedHashMap<>();
    Map<String, SystemProducer> producers = new LinkedHashMap<>();
    Map<SystemProducer, int[]> producerIndices = new HashMap<>();
    Map<String, OutputRoute> routes = new HashMap<>();
    for (String output : plan.outputs()) {
      StreamInfo info = plan.streams().get(output);
      SystemProducer producer = producers.computeIfAbsent(info.system(), s -> plan.factories()
          .get(s).producer(context(plan, s, id)));
      int index = producerIndices.computeIfAbsent(producer, p -> new int[1])[0]++;
      int count = plan.partitionCounts().get(output);
      producer.register(index, info.spec(), count);
      routes.put(output, new OutputRoute(output, producer, index, count));
    }

    int[] taskNumbers = plan.tasksOf(id);
    String[] taskNames = new String[taskNumbers.length];
    for (int t = 0; t < taskNumbers.length; t++) {
      taskNames[t] = "Partition " + taskNumbers[t];
    }
    ContainerStores stores = openStores(plan, id, taskNumbers, taskNames, producers,
        producerIndices);
    List<TaskSpec> tasks = new ArrayList<>();
    for (int t = 0; t < taskNumbers.length; t++) {
      int number = taskNumbers[t];
      List<StreamPartition> mine = new ArrayList<>();
      List<PartitionSpec> inputs = new ArrayList<>();
      for (String input : plan.inputs()) {
        if (plan.partitionCounts().get(input) > number) {
          StreamInfo info = plan.streams().get(input);
          StreamPartition sp = new StreamPartition(info.system(), input, number);
          mine.add(sp);
          SystemConsumer consumer = consumers.computeIfAbsent(info.system(), s -> plan
              .factories().get(s).consumer(context(plan, s, id)));
          inputs.add(partitionSpec(plan, sp, info, consumer));
        }
      }
      String name = taskNames[t];
      TaskCollector collector = new TaskCollector(routes, name);
      List<Runnable> idleActions = new ArrayList<>();
      TaskContextImpl context = new TaskContextImpl(name, number, List.copyOf(mine),
          plan.config().asMap(), plan.metrics(), collector, idleActions,
          stores == null ? Map.of() : stores.storesOf(t));
      TaskInstance task = new TaskInstance(name, number, newTask(plan), collector, context,
          mine.size(), idleActions);
      tasks.add(new TaskSpec(task, inputs));
    }
    OutputRoute deadLetters = plan.deadLetterStream() == null ? null
        : routes.get(plan.deadLetterStream());
    List<SystemProducer> producerList = new ArrayList<>(producers.values());
    Committer committer = new Committer(id, producerList, stores, plan.checkpointStore(),
        plan.metrics().counter("container-" + id, "commits"));
    boolean dispatched = AsyncStreamTask.class.isAssignableFrom(
        plan.taskConstructor().getDeclaringClass()) || plan.settings().async().poolSize() > 0;
    ContainerParts parts = new ContainerParts(id, plan.settings(), clock, plan.metrics(),
        new ArrayList<>(consumers.values()), producerList, committer, plan.errorPolicy(),
        deadLetters, stores, dispatched);
    return new Container(id, new RunLoop(parts, tasks));
  }

  /**
   * Resolves where an input partition starts: after its checkpointed offset, or where its
   * stream's {@code offset.default} says; and what bootstrap and progress need.
   */
  private static PartitionSpec partitionSpec(JobPlan plan, StreamPartition sp, StreamInfo info,
      SystemConsumer consumer) {
    StreamMetadata meta = plan.admins().get(info.system()).metadata(info.spec(), sp.partition());
    Long saved = info.reset() ? null : plan.checkpoint().get(sp);
    StartPosition start = saved == null ? info.offsetDefault() : StartPosition.after(saved);
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

  /**
   * Opens the container's stores, registering each changelog as an output of its system's
   * producer (one index per store, the task's number as partition); null without stores.
   */
  private static ContainerStores openStores(JobPlan plan, int id, int[] taskNumbers,
      String[] taskNames, Map<String, SystemProducer> producers,
      Map<SystemProducer, int[]> producerIndices) {
    if (plan.stores().isEmpty()) {
      return null;
    }
    Map<String, Integer> changelogIndex = new HashMap<>();
    // With a core to spare, RocksDB writes and Kafka changelog sends are done off the loop thread.
    StoreFlusher flusher = Runtime.getRuntime().availableProcessors() > 1
        ? StoreFlusher.threaded("millrace-" + plan.jobName() + "-store-flush-" + id)
        : StoreFlusher.inline();
    ContainerStores.Changelogs changelogs = (spec, taskNumber) -> {
      SystemProducer producer = producers.computeIfAbsent(spec.changelogSystem(),
          s -> plan.factories().get(s).producer(context(plan, s, id)));
      int index = changelogIndex.computeIfAbsent(spec.name(), n -> {
        int i = producerIndices.computeIfAbsent(producer, p -> new int[1])[0]++;
        producer.register(i, spec.changelogSpec(), plan.taskCount());
        return i;
      });
      return new ChangelogWriter(producer, index, taskNumber);
    };
    int restoreThreads = plan.config().getInt(CoreKeys.RESTORE_THREADS,
        Runtime.getRuntime().availableProcessors(), 1);
    long started = System.nanoTime();
    ContainerStores stores = ContainerStores.open(plan.stores(), taskNumbers, taskNames,
        plan.storesDir(), plan.config().asMap(), plan.checkpoint(), changelogs,
        system -> new ChangelogRestorer(system,
            plan.factories().get(system).consumer(context(plan, system, id)),
            plan.admins().get(system),
            plan.metrics().counter("container-" + id, "store-restore-records"),
            plan.metrics().counter("container-" + id, "store-restore-ms"), restoreThreads),
        flusher);
    plan.metrics().counter("container-" + id, "store-open-ms")
        .inc((System.nanoTime() - started) / 1_000_000);
    return stores;
  }

  private static DefaultSystemContext context(JobPlan plan, String system, int id) {
    return new DefaultSystemContext(system, plan.jobName(), id, plan.config(), plan.metrics());
  }

  private static Object newTask(JobPlan plan) {
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
