package io.millrace.core.job;

import static io.millrace.core.config.CoreKeys.*;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointStoreFactory;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemFactory;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.checkpoint.ImportedCheckpoints;
import io.millrace.core.config.AnyInteger;
import io.millrace.core.config.CoreKeys;
import io.millrace.core.coordinate.Coordinators;
import io.millrace.core.loop.ErrorPolicy;
import io.millrace.core.loop.LoopSettings;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.plan.Outline;
import io.millrace.core.serde.Serdes;
import io.millrace.core.store.ChangelogPartitions;
import io.millrace.core.store.StoreConfig;
import io.millrace.core.store.StoreSpec;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Validates a job's configuration and plans it: every key known, every value well-formed, every
 * stream on a system, partition counts known, checkpoints read. Anything wrong stops here, before
 * a message is read, with a message naming the key, the value and what is allowed.
 */
public final class JobPlanner {
  private JobPlanner() {}

  /**
   * Checks a configuration without touching any stream: keys, values, classes, systems.
   *
   * @throws ConfigException describing the first problem found
   */
  public static void check(JobConfig config) {
    validate(JobTranslators.translate(config, Thread.currentThread().getContextClassLoader()));
  }

  /**
   * Validates and plans a job: also asks the systems for partition counts, creates missing outputs
   * and reads the checkpoints.
   */
  public static JobPlan plan(JobConfig original) {
    JobConfig config =
        JobTranslators.translate(original, Thread.currentThread().getContextClassLoader());
    Validated v = validate(config);
    String jobName = v.jobName;
    DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(config.getBoolean(TIMERS_ENABLED, false));
    Map<String, SystemAdmin> admins = new LinkedHashMap<>();
    v.factories.forEach((name, factory) -> admins.put(name,
        factory.admin(new DefaultSystemContext(name, jobName, -1, config, metrics))));
    // A stream the job writes and reads back exists once the job writes it: created first, with
    // its stated partitions or one per task of the other inputs, so it is read like any input.
    Map<String, Integer> counts = inputPartitions(config, v, admins::get, true);
    int taskCount = taskCount(counts);
    for (String output : v.outputs) {
      StreamInfo info = v.streams.get(output);
      int wanted = info.outputPartitions() > 0 ? info.outputPartitions() : taskCount;
      counts.put(output, admins.get(info.system()).ensureOutput(info.spec(), wanted));
    }
    for (StoreSpec spec : v.stores) {
      if (spec.hasChangelog()) {
        admins.get(spec.changelogSystem()).ensureChangelog(spec.changelogSpec(), taskCount);
      }
    }
    CheckpointStore store = checkpointStore(config, v, metrics);
    Map<StreamPartition, Long> checkpoint;
    try {
      checkpoint = store.read();
      store = CheckpointImports.apply(
          CheckpointImports.of(config, Thread.currentThread().getContextClassLoader()), store,
          checkpoint, config, jobName, v.factories, admins, metrics);
      if (store instanceof ImportedCheckpoints) {
        checkpoint = store.read();
      }
    } catch (RuntimeException e) {
      store.close();
      admins.values().forEach(SystemAdmin::close); // (a Kafka admin's thread would outlive it)
      throw e;
    }
    int containers = Math.min(config.getInt(CONTAINER_COUNT, 1, 1), Math.max(1, taskCount));
    JobPlan plan = new JobPlan(config, jobName, v.taskConstructor, v.streams, v.inputs, v.outputs,
        counts, taskCount, containers, v.factories, admins, store, checkpoint, v.settings,
        v.policy, v.deadLetter, metrics, config.getLong(SHUTDOWN_MS, 30_000, 0), v.stores,
        Path.of(config.get(STATE_DIR, "state/" + jobName), "stores"), v.coordinator);
    try {
      v.coordinator.validate(plan.coordinatorContext()); // inputs and partition counts known now
    } catch (RuntimeException e) {
      plan.close();
      throw e;
    }
    return plan;
  }

  /**
   * What {@code millrace plan} shows of a job: validated as {@link #plan} does, its inputs'
   * partitions asked from their systems, and its outputs, internal streams and changelogs as
   * the job would create them. Nothing is created or written, and no checkpoint is read.
   *
   * @throws ConfigException describing the first problem found
   */
  public static Outline outline(JobConfig original) {
    JobTranslators.Translated translated =
        JobTranslators.translation(original, Thread.currentThread().getContextClassLoader());
    JobConfig config = translated.config();
    Validated v = validate(config);
    DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
    Map<String, SystemAdmin> admins = new LinkedHashMap<>();
    try {
      Map<String, Integer> counts = inputPartitions(config, v,
          system -> admins.computeIfAbsent(system, name -> v.factories.get(name)
              .admin(new DefaultSystemContext(name, v.jobName, -1, config, metrics))), false);
      int taskCount = taskCount(counts);
      List<Outline.Stream> streams = new ArrayList<>();
      for (String input : v.inputs) {
        StreamInfo info = v.streams.get(input);
        streams.add(new Outline.Stream(info.intermediate() ? Outline.Role.INTERNAL
            : Outline.Role.INPUT, input, info.system(), info.spec().physicalName(),
            counts.get(input)));
      }
      for (String output : v.outputs) {
        StreamInfo info = v.streams.get(output);
        if (!info.intermediate()) {
          streams.add(new Outline.Stream(Outline.Role.OUTPUT, output, info.system(),
              info.spec().physicalName(),
              info.outputPartitions() > 0 ? info.outputPartitions() : taskCount));
        }
      }
      List<Outline.Store> stores = new ArrayList<>();
      for (StoreSpec spec : v.stores) {
        stores.add(new Outline.Store(spec.name(),
            config.get("stores." + spec.name() + "." + StoreConfig.FACTORY,
                spec.factory().getClass().getName()),
            spec.keySerde().getClass().getName(), spec.valueSerde().getClass().getName(),
            spec.hasChangelog() ? spec.changelogSystem() + "." + spec.changelogStream() : null,
            taskCount));
      }
      List<Outline.Operator> operators = new ArrayList<>();
      for (var op : translated.operators()) {
        operators.add(new Outline.Operator(op.path(), op.kind(), op.name(), op.stores()));
      }
      return new Outline(v.jobName, v.taskConstructor.getDeclaringClass().getName(), taskCount,
          streams, stores, operators);
    } finally {
      admins.values().forEach(SystemAdmin::close);
    }
  }

  /**
   * Each input's partition count, the co-partition groups checked: the inputs' own, then each
   * intermediate stream's (its stated count, else its group's, else one per task), which the
   * plan creates ({@code create}) and the outline only states.
   */
  private static Map<String, Integer> inputPartitions(JobConfig config, Validated v,
      java.util.function.Function<String, SystemAdmin> adminOf, boolean create) {
    CopartitionGroups groups = CopartitionGroups.of(config, v.inputs); // (bad keys first)
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String input : v.inputs) {
      StreamInfo info = v.streams.get(input);
      if (!info.intermediate()) {
        counts.put(input, adminOf.apply(info.system()).partitionCount(info.spec()));
      }
    }
    for (String input : v.inputs) {
      StreamInfo info = v.streams.get(input);
      if (info.intermediate()) {
        int wanted = info.outputPartitions() > 0 ? info.outputPartitions()
            : Math.max(1, groups.partitionsOf(input, counts, taskCount(counts)));
        if (create) {
          SystemAdmin admin = adminOf.apply(info.system());
          admin.ensureOutput(info.spec(), wanted);
          wanted = admin.partitionCount(info.spec());
        }
        counts.put(input, wanted);
      }
    }
    groups.check(counts);
    return counts;
  }

  /** The tasks a job of these input partition counts has: one per partition of the largest. */
  private static int taskCount(Map<String, Integer> counts) {
    int tasks = 0;
    for (int count : counts.values()) {
      tasks = Math.max(tasks, count);
    }
    return tasks;
  }

  private static CheckpointStore checkpointStore(
      JobConfig config, Validated v, DefaultMetricsRegistry metrics) {
    String system = config.get(CHECKPOINT_SYSTEM, "file");
    if (system.equals("file")) {
      String stateDir = config.get(STATE_DIR, "state/" + v.jobName);
      return new FileCheckpointStore(Path.of(config.get(CHECKPOINT_DIR, stateDir + "/checkpoints")));
    }
    return ((CheckpointStoreFactory) v.factories.get(system)).checkpointStore(
        new DefaultSystemContext(system, v.jobName, -1, config, metrics));
  }

  private record Validated(String jobName, Constructor<?> taskConstructor,
      Map<String, StreamInfo> streams, List<String> inputs, List<String> outputs,
      Map<String, SystemFactory> factories, LoopSettings settings, ErrorPolicy policy,
      String deadLetter, List<StoreSpec> stores, CoordinatorFactory coordinator) {}

  private static Validated validate(JobConfig config) {
    String jobName = config.required(JOB_NAME);
    Constructor<?> task = taskConstructor(config, Thread.currentThread().getContextClassLoader());
    List<String> inputs = config.getList(TASK_INPUTS);
    if (inputs.isEmpty()) {
      throw new ConfigException("missing required key " + TASK_INPUTS + " in " + config.source()
          + ": list the input stream ids, comma-separated");
    }
    List<String> outputs = new ArrayList<>(config.getList(TASK_OUTPUTS));
    ErrorPolicy policy = ErrorPolicy.of(
        config.getChoice(ERROR_POLICY, "fail", "fail", "skip", "dead-letter"));
    String deadLetter = config.get(DEAD_LETTER_STREAM);
    if (policy == ErrorPolicy.DEAD_LETTER) {
      if (deadLetter == null) {
        throw new ConfigException("task.error.policy=dead-letter needs " + DEAD_LETTER_STREAM
            + " (the id of the stream failed messages go to) in " + config.source());
      }
      if (!outputs.contains(deadLetter)) {
        outputs.add(deadLetter);
      }
    }
    Set<String> used = new LinkedHashSet<>(inputs);
    used.addAll(outputs);
    for (String id : inputs) {
      if (outputs.contains(id) && !config.getBoolean("streams." + id + "." + S_INTERMEDIATE, false)) {
        throw new ConfigException("stream " + id + " is both in task.inputs and task.outputs "
            + "(a stream the job writes and reads back, such as a repartition, needs streams."
            + id + "." + S_INTERMEDIATE + "=true)");
      }
    }
    // Systems: those named by streams, plus those configured.
    Map<String, SystemFactory> factories = new LinkedHashMap<>();
    Set<String> streamIds = new TreeSet<>(config.idsUnder("streams"));
    streamIds.addAll(used);
    for (String id : streamIds) {
      String system = config.get("streams." + id + "." + S_SYSTEM);
      if (system == null) {
        throw new ConfigException("missing required key streams." + id + ".system in "
            + config.source() + ": name the system stream " + id + " lives on (memory, file, ...)");
      }
      factories.computeIfAbsent(system, s -> Systems.factory(config, s));
    }
    for (String system : config.idsUnder("systems")) {
      factories.computeIfAbsent(system, s -> Systems.factory(config, s));
    }
    CoordinatorFactory coordinator = Coordinators.factory(config);
    KnownKeys.check(config, factories, coordinator);
    long pollDefault = config.getLong(POLL_INTERVAL_MS, 50, 0);
    Map<String, StreamInfo> streams = new LinkedHashMap<>();
    for (String id : used) {
      streams.put(id, stream(config, id, pollDefault));
    }
    for (String id : streamIds) {
      if (!used.contains(id)) {
        stream(config, id, pollDefault); // still validate its values
      }
    }
    boolean exactlyOnce = config.getChoice(PROCESSING_GUARANTEE, "at-least-once",
        "at-least-once", "exactly-once").equals("exactly-once");
    LoopSettings settings = new LoopSettings(
        TimeUnit.MILLISECONDS.toNanos(AnyInteger.of(config, COMMIT_MS,
            exactlyOnce ? EXACTLY_ONCE_COMMIT_MS : coordinator.defaultCommitMs(),
            "an integer, in milliseconds (0 or less: commit only when asked and at stop)")),
        TimeUnit.MILLISECONDS.toNanos(AnyInteger.of(config, WINDOW_MS, -1,
            "an integer, in milliseconds (-1: no window calls)")),
        turnSize(config),
        config.getInt(BUFFER_MAX_MESSAGES, 4096, 1),
        config.getLong(BUFFER_MAX_BYTES, DEFAULT_BUFFER_MAX_BYTES, 1),
        config.getLong(BUFFER_MAX_TOTAL_BYTES, DEFAULT_BUFFER_MAX_TOTAL_BYTES, 1),
        10,
        asyncSettings(config),
        exactlyOnce);
    config.getInt(CONTAINER_COUNT, 1, 1);
    config.getInt(RESTORE_THREADS, 1, 1);
    config.getChoice(CHANGELOG_PARTITION_ORDER, ChangelogPartitions.TASK_NUMBER,
        ChangelogPartitions.TASK_NUMBER, ChangelogPartitions.SAMZA);
    restoreBesidePercent(config);
    config.getLong(ACCEPTABLE_RECOVERY_LAG, 10_000, 0);
    config.getInt(MAX_WARMUP_REPLICAS, 2, 0);
    int standbys = config.getInt(STANDBY_REPLICAS, 0, 0);
    if (standbys > 0 && config.get(COORDINATOR, "local").equals("local")) {
      throw config.bad(STANDBY_REPLICAS, Integer.toString(standbys), "0 under "
          + COORDINATOR + "=local: one process runs every task, so there is no other process "
          + "to keep a standby copy (set " + COORDINATOR + "=kafka to share the job's tasks)");
    }
    checkpointSystem(config, factories);
    config.getLong(SHUTDOWN_MS, 30_000, 0);
    config.getBoolean(TIMERS_ENABLED, false);
    config.getLong(REPORTER_INTERVAL_MS, 60_000, 1);
    for (String reporter : config.getList(REPORTERS)) {
      if (!reporter.equals("log") && !reporter.equals("jmx")) {
        throw config.bad(REPORTERS, config.get(REPORTERS), "a comma-separated list of log, jmx");
      }
    }
    factories.forEach((name, factory) ->
        factory.validate(new DefaultSystemContext(name, jobName, -1, config, null)));
    List<StoreSpec> stores = StoreConfig.parse(config, factories.keySet());
    checkStoresAreNotShared(config, task.getDeclaringClass(), settings.async(), stores);
    if (exactlyOnce) {
      if (settings.commitNanos() <= 0) {
        throw config.bad(COMMIT_MS, config.get(COMMIT_MS), "a positive interval under "
            + PROCESSING_GUARANTEE + "=exactly-once (default " + EXACTLY_ONCE_COMMIT_MS + "): a "
            + "transaction left open until a commit is requested would be aborted by the broker "
            + "after its transaction.timeout.ms, and the job would stop");
      }
      checkExactlyOnce(config, streams, outputs, stores, factories);
    }
    CheckpointImports.of(config, Thread.currentThread().getContextClassLoader()); // a bad class
    return new Validated(jobName, task, streams, inputs, outputs, factories, settings, policy,
        deadLetter, stores, coordinator);
  }

  /** {@code task.consumer.batch.size}: {@code auto} (0 here: by the partition count) or >= 1. */
  private static int turnSize(JobConfig config) {
    String value = config.get(BATCH_SIZE, "auto").trim();
    if (value.equals("auto")) {
      return 0;
    }
    try {
      int messages = Integer.parseInt(value);
      if (messages >= 1) {
        return messages;
      }
    } catch (NumberFormatException notANumber) {
      // refused below, with what is expected
    }
    throw config.bad(BATCH_SIZE, value, "auto, or an integer of at least 1 (messages a partition "
        + "gets per turn of the chooser)");
  }

  /** {@code task.checkpoint.system}: file, or a system of the job whose factory keeps checkpoints. */
  private static void checkpointSystem(JobConfig config, Map<String, SystemFactory> factories) {
    String system = config.get(CHECKPOINT_SYSTEM, "file");
    if (system.equals("file")) {
      return;
    }
    List<String> able = new ArrayList<>(List.of("file"));
    factories.forEach((name, factory) -> {
      if (factory instanceof CheckpointStoreFactory) {
        able.add(name);
      }
    });
    if (!(factories.get(system) instanceof CheckpointStoreFactory)) {
      throw config.bad(CHECKPOINT_SYSTEM, system, factories.containsKey(system)
          ? "one of " + String.join(", ", able) + " (system " + system + " cannot keep checkpoints)"
          : "one of " + String.join(", ", able) + " (no system named " + system
              + " is configured)");
    }
  }

  /**
   * Exactly-once needs one transaction per commit to hold everything the commit makes visible:
   * every output and changelog on one system that supports transactions, and, under the local
   * coordinator, the checkpoints on it too (a coordinator that keeps the checkpoints itself checks
   * its own). Every store needs a changelog: local files alone cannot say which commit they hold.
   */
  private static void checkExactlyOnce(JobConfig config, Map<String, StreamInfo> streams,
      List<String> outputs, List<StoreSpec> stores, Map<String, SystemFactory> factories) {
    String why = " under " + PROCESSING_GUARANTEE + "=exactly-once";
    String where = " in " + config.source();
    // What must commit together, in the order a user would look for it: name -> system.
    Map<String, String> written = new LinkedHashMap<>();
    if (!"kafka".equals(config.get(COORDINATOR, "local"))) {
      String checkpoints = config.get(CHECKPOINT_SYSTEM, "file");
      if (checkpoints.equals("file") || !factories.get(checkpoints).supportsTransactions()) {
        throw new ConfigException(CHECKPOINT_SYSTEM + "=" + checkpoints + " cannot be written in "
            + "a transaction with the outputs" + why + ": set it to the Kafka system the outputs "
            + "and changelogs are on" + where);
      }
      written.put("the checkpoints (" + CHECKPOINT_SYSTEM + ")", checkpoints);
    }
    for (String output : outputs) {
      written.put("output stream " + output, streams.get(output).system());
    }
    for (StoreSpec store : stores) {
      if (!store.hasChangelog()) {
        throw new ConfigException("store " + store.name() + " has no changelog" + why
            + ": its local files alone cannot say which commit they hold after a crash; give it "
            + "stores." + store.name() + ".changelog on the outputs' Kafka system" + where);
      }
      written.put("the changelog of store " + store.name(), store.changelogSystem());
    }
    String firstName = null;
    String firstSystem = null;
    for (Map.Entry<String, String> e : written.entrySet()) {
      String system = e.getValue();
      if (!factories.get(system).supportsTransactions()) {
        throw new ConfigException(e.getKey() + " is on system '" + system + "', which cannot "
            + "take part in a transaction" + why + ": every output and changelog must be on one "
            + "Kafka system" + where);
      }
      if (firstSystem == null) {
        firstName = e.getKey();
        firstSystem = system;
      } else if (!firstSystem.equals(system)) {
        throw new ConfigException(e.getKey() + " is on system '" + system + "' but "
            + firstName + " on '" + firstSystem + "'" + why + ": one commit is one transaction "
            + "of one producer, so every output, changelog and checkpoint must be on one system"
            + where);
      }
    }
  }

  /**
   * A store is not thread-safe: a synchronous task on the worker pool with more than one message in
   * flight would call its stores from several threads at once and corrupt their caches, so such a
   * job is refused at start (an async task's process calls, where it reads and writes its stores,
   * stay on the loop thread).
   */
  private static void checkStoresAreNotShared(JobConfig config, Class<?> taskClass,
      AsyncSettings async, List<StoreSpec> stores) {
    if (stores.isEmpty() || async.poolSize() == 0 || async.maxConcurrency() == 1
        || AsyncStreamTask.class.isAssignableFrom(taskClass)) {
      return;
    }
    throw new ConfigException("task " + taskClass.getName() + " runs on the worker pool ("
        + POOL_SIZE + "=" + async.poolSize() + ") with " + MAX_CONCURRENCY + "="
        + async.maxConcurrency() + ", so several of its messages run at once on different "
        + "threads, and the job declares stores (" + stores.stream().map(StoreSpec::name)
        .collect(java.util.stream.Collectors.joining(", ")) + "), which are not thread-safe: set "
        + MAX_CONCURRENCY + "=1, or " + POOL_SIZE + "=0 (inline), or make the task an "
        + "AsyncStreamTask that uses its stores in processAsync, in " + config.source());
  }

  /**
   * How the job's tasks run asynchronously ({@code task.max.concurrency}, {@code task.ordering},
   * the callback time-out, the worker pool): read once here, for the container and the test
   * driver alike.
   *
   * @throws ConfigException naming the key whose value is bad
   */
  public static AsyncSettings asyncSettings(JobConfig config) {
    return new AsyncSettings(
        maxConcurrency(config),
        Ordering.of(config.getChoice(ORDERING, "partition", "partition", "key", "none")),
        TimeUnit.MILLISECONDS.toNanos(config.getLong(CALLBACK_TIMEOUT_MS, 60_000, 1)),
        config.getInt(POOL_SIZE, 0, 0),
        config.getBoolean(POOL_VIRTUAL, false));
  }

  /** Bounded so per-partition watermark rings (20 x concurrency, grown as used) cannot overflow. */
  private static int maxConcurrency(JobConfig config) {
    int value = config.getInt(MAX_CONCURRENCY, 1, 1);
    if (value > 100_000) {
      throw config.bad(MAX_CONCURRENCY, config.get(MAX_CONCURRENCY), "an integer from 1 to 100000");
    }
    return value;
  }

  private static StreamInfo stream(JobConfig config, String id, long pollDefault) {
    String p = "streams." + id + ".";
    String system = config.required(p + S_SYSTEM);
    StreamSpec spec = new StreamSpec(id, config.get(p + S_PHYSICAL_NAME, id),
        Serdes.byName(p + S_KEY_SERDE, config.get(p + S_KEY_SERDE, "string")),
        Serdes.byName(p + S_VALUE_SERDE, config.get(p + S_VALUE_SERDE, "string")));
    String offsetDefault = config.getChoice(p + S_OFFSET_DEFAULT, "oldest", "oldest", "upcoming");
    return new StreamInfo(spec, system,
        priority(config, p + S_PRIORITY),
        config.getBoolean(p + S_BOOTSTRAP, false),
        offsetDefault.equals("oldest") ? StartPosition.oldest() : StartPosition.upcoming(),
        config.getBoolean(p + S_OFFSET_RESET, false),
        TimeUnit.MILLISECONDS.toNanos(config.getLong(p + S_POLL_INTERVAL_MS, pollDefault, 0)),
        config.getInt(p + S_PARTITIONS, -1, 1),
        config.getBoolean(p + S_INTERMEDIATE, false));
  }

  /**
   * The no-argument constructor of {@code task.class}, loaded by {@code loader} and checked (a
   * task, one kind, not abstract), accessible even if the class is not public.
   */
  public static Constructor<?> taskConstructor(JobConfig config, ClassLoader loader) {
    String name = config.required(TASK_CLASS);
    Class<?> type;
    try {
      type = Class.forName(name, true, loader);
    } catch (ClassNotFoundException e) {
      throw new ConfigException("bad value '" + name + "' for " + TASK_CLASS
          + ": no such class on the classpath (a task in your own jar or classes directory: "
          + "millrace run --classpath <jar|dir> ...)");
    }
    if (!StreamTask.class.isAssignableFrom(type) && !AsyncStreamTask.class.isAssignableFrom(type)) {
      throw new ConfigException("bad value '" + name + "' for " + TASK_CLASS
          + ": it implements neither io.millrace.api.StreamTask nor io.millrace.api.AsyncStreamTask");
    }
    if (StreamTask.class.isAssignableFrom(type) && AsyncStreamTask.class.isAssignableFrom(type)) {
      throw new ConfigException("bad value '" + name + "' for " + TASK_CLASS
          + ": it implements both StreamTask and AsyncStreamTask; choose one");
    }
    if (Modifier.isAbstract(type.getModifiers())) {
      throw new ConfigException("bad value '" + name + "' for " + TASK_CLASS + ": it is abstract");
    }
    try {
      Constructor<?> constructor = type.getDeclaredConstructor();
      constructor.setAccessible(true);
      return constructor;
    } catch (NoSuchMethodException e) {
      throw new ConfigException("bad value '" + name + "' for " + TASK_CLASS
          + ": it needs a no-argument constructor");
    }
  }

  /** {@code streams.<id>.priority}: any int. */
  private static int priority(JobConfig config, String key) {
    String allowed = "an integer from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE
        + " (a higher priority is read first)";
    long priority = AnyInteger.of(config, key, 0, allowed);
    if (priority != (int) priority) {
      throw config.bad(key, config.get(key), allowed);
    }
    return (int) priority;
  }

  /** {@code job.container.restore.beside.percent}: from 1 to 100. */
  static int restoreBesidePercent(JobConfig config) {
    int percent = config.getInt(CoreKeys.RESTORE_BESIDE_PERCENT, 10, 1);
    if (percent > 100) {
      throw config.bad(CoreKeys.RESTORE_BESIDE_PERCENT, Integer.toString(percent),
          "a percentage from 1 to 100");
    }
    return percent;
  }
}
