package io.millrace.core.config;

import java.util.List;

/** Every key the core runtime itself understands, with its default and meaning. */
public final class CoreKeys {
  public static final String JOB_NAME = "job.name";
  public static final String CONTAINER_COUNT = "job.container.count";
  public static final String COORDINATOR = "job.coordinator";
  public static final String INSTANCE_ID = "job.instance.id";
  public static final String STATE_DIR = "job.state.dir";
  public static final String STANDBY_REPLICAS = "job.standby.replicas";
  public static final String CHANGELOG_PARTITION_ORDER = "job.changelog.partition.order";
  public static final String RACK = "job.rack";
  public static final String ACCEPTABLE_RECOVERY_LAG = "job.acceptable.recovery.lag";
  public static final String MAX_WARMUP_REPLICAS = "job.max.warmup.replicas";
  public static final String TASK_CLASS = "task.class";
  public static final String TASK_INPUTS = "task.inputs";
  /** {@code task.copartition.<group>}: input streams that must have as many partitions. */
  public static final String COPARTITION_PREFIX = "task.copartition.";
  public static final String TASK_OUTPUTS = "task.outputs";
  public static final String COMMIT_MS = "task.commit.ms";
  public static final String COMMIT_BACKGROUND = "task.commit.background";
  public static final String WINDOW_MS = "task.window.ms";
  public static final String POLL_INTERVAL_MS = "task.poll.interval.ms";
  public static final String BATCH_SIZE = "task.consumer.batch.size";
  public static final String BUFFER_MAX_MESSAGES = "task.buffer.max.messages";
  public static final String BUFFER_MAX_BYTES = "task.buffer.max.bytes";
  public static final String BUFFER_MAX_TOTAL_BYTES = "task.buffer.max.total.bytes";
  /**
   * 32 MB for all a container's partition buffers: split evenly, 4 MB each at 8 partitions, 32 KB
   * each at 1,000 (the bound of docs/configuration.md, "Bounds on memory").
   */
  public static final long DEFAULT_BUFFER_MAX_TOTAL_BYTES = 32L << 20;
  /**
   * No cap of a partition's own unless the job sets one: its share of the container's total is the
   * cap. The 1 MB it once was left three quarters of the total unused at 8 partitions (issue 35).
   */
  public static final long DEFAULT_BUFFER_MAX_BYTES = Long.MAX_VALUE;
  public static final String ERROR_POLICY = "task.error.policy";
  public static final String PROCESSING_GUARANTEE = "task.processing.guarantee";
  /** The commit interval under exactly-once when the job does not set one. */
  public static final long EXACTLY_ONCE_COMMIT_MS = 100;
  public static final String DEAD_LETTER_STREAM = "task.dead.letter.stream";
  public static final String CHECKPOINT_SYSTEM = "task.checkpoint.system";
  public static final String CHECKPOINT_DIR = "task.checkpoint.dir";
  public static final String CHECKPOINT_IMPORT = "task.checkpoint.import";
  public static final String SHUTDOWN_MS = "task.shutdown.ms";
  public static final String MAX_CONCURRENCY = "task.max.concurrency";
  public static final String ORDERING = "task.ordering";
  public static final String CALLBACK_TIMEOUT_MS = "task.callback.timeout.ms";
  public static final String POOL_SIZE = "job.container.thread.pool.size";
  public static final String POOL_VIRTUAL = "job.container.thread.pool.virtual";
  public static final String RESTORE_THREADS = "job.container.restore.threads";
  public static final String RESTORE_BESIDE_PERCENT = "job.container.restore.beside.percent";
  public static final String TIMERS_ENABLED = "metrics.timers.enabled";
  public static final String REPORTERS = "metrics.reporters";
  public static final String REPORTER_INTERVAL_MS = "metrics.reporter.interval.ms";
  public static final String HTTP_PORT = "metrics.http.port";
  public static final String HTTP_HOST = "metrics.http.host";

  // Stream keys, after "streams.<id>."
  public static final String S_SYSTEM = "system";
  public static final String S_PHYSICAL_NAME = "physical.name";
  public static final String S_KEY_SERDE = "key.serde";
  public static final String S_VALUE_SERDE = "value.serde";
  public static final String S_PRIORITY = "priority";
  public static final String S_BOOTSTRAP = "bootstrap";
  public static final String S_OFFSET_DEFAULT = "offset.default";
  public static final String S_OFFSET_RESET = "offset.reset";
  public static final String S_POLL_INTERVAL_MS = "poll.interval.ms";
  public static final String S_PARTITIONS = "partitions";
  public static final String S_INTERMEDIATE = "intermediate";

  /** The documented core keys, in the order docs/configuration.md lists them. */
  public static final List<ConfigKey> ALL = List.of(
      new ConfigKey(JOB_NAME, null, "The job's name (required); names its checkpoints and metrics."),
      new ConfigKey(CONTAINER_COUNT, "1", "Containers (loop threads) in the process; tasks are spread over them."),
      new ConfigKey(COORDINATOR, "local", "Who decides which tasks this process runs: local (every task, here) | kafka (shared with every process of the job, over a Kafka consumer group)."),
      new ConfigKey(INSTANCE_ID, null, "This process's stable name in the job (a pod name): with job.coordinator=kafka, a restart under the same name inside the session timeout moves no task."),
      new ConfigKey(STATE_DIR, "state/<job.name>", "Where the job keeps local state (checkpoints by default)."),
      new ConfigKey(STANDBY_REPLICAS, "0", "With job.coordinator=kafka: how many other processes keep a copy of each stateful task's RocksDB stores, following its changelog, so that a failover replays only the changelog's tail."),
      new ConfigKey(RACK, "", "This process's rack or zone: a standby copy goes to a process in another rack than its task's where there is one."),
      new ConfigKey(ACCEPTABLE_RECOVERY_LAG, "10000", "With job.coordinator=kafka: a stateful task moves at once only to a process with at most this many changelog records to restore for it; elsewhere it keeps running where it is while a warm-up copy catches up there."),
      new ConfigKey(MAX_WARMUP_REPLICAS, "2", "The most warm-up copies a job's group has at once; 0: tasks move at once and restore where they land."),
      new ConfigKey(TASK_CLASS, null, "The task's class (required): a StreamTask with a public no-argument constructor."),
      new ConfigKey(TASK_INPUTS, null, "Comma-separated input stream ids (required)."),
      new ConfigKey("task.copartition.<group>", null, "Comma-separated input stream ids read together by key (a join, an aggregate of merged streams): the job stops at start unless they have as many partitions. An intermediate one without its own partitions is created with theirs. The DSL writes these."),
      new ConfigKey(TASK_OUTPUTS, "", "Comma-separated output stream ids the task may send to."),
      new ConfigKey(COMMIT_MS, "60000 (job.coordinator=kafka: 5000; exactly-once: 100)", "Commit (flush outputs, write the checkpoint) this often, in ms; 0 or less: only on request and at stop."),
      new ConfigKey(COMMIT_BACKGROUND, "true", "A periodic commit waits for the stores' flushes, the outputs' acknowledgements and the engines' syncs on a thread of its own while the tasks go on; the loop stops only to hand the stores' changes over and to write the checkpoint. Under exactly-once only where the checkpoint commits the transaction that holds every send. Where a producer cannot flush beside sends (memory, file), the whole commit runs on the loop. false: always on the loop."),
      new ConfigKey(WINDOW_MS, "-1", "Call WindowableTask.window this often, in ms; -1 disables it."),
      new ConfigKey(POLL_INTERVAL_MS, "50", "While other partitions still have data, poll an empty partition at most this often, in ms."),
      new ConfigKey(BATCH_SIZE, "auto", "Messages a partition gets per turn of the chooser (1 = strict round-robin; auto: 1 up to 64 partitions, then one more per 64, up to 32)."),
      new ConfigKey(BUFFER_MAX_MESSAGES, "4096", "The most messages handed over per poll of a partition, and its buffer's cap."),
      new ConfigKey(BUFFER_MAX_BYTES, "(its share of task.buffer.max.total.bytes)", "A partition's buffer cap in bytes, if lower than its share of the container's total: a fuller buffer pauses fetching for it."),
      new ConfigKey(BUFFER_MAX_TOTAL_BYTES, Long.toString(DEFAULT_BUFFER_MAX_TOTAL_BYTES), "A container's buffers together: each partition's cap is at most this divided by its partition count."),
      new ConfigKey(PROCESSING_GUARANTEE, "at-least-once", "at-least-once (a crash may repeat output after the last commit) | exactly-once (each commit's outputs, changelog records and checkpoint become visible together or not at all; every output, changelog and the checkpoints on one Kafka system)."),
      new ConfigKey(ERROR_POLICY, "fail", "What a message that fails to deserialize or makes the task throw does: fail | skip | dead-letter."),
      new ConfigKey(DEAD_LETTER_STREAM, null, "The stream id failed messages go to under task.error.policy=dead-letter."),
      new ConfigKey(CHECKPOINT_SYSTEM, "file", "Where checkpoints are kept: file, or a system that keeps them (kafka: a compacted topic)."),
      new ConfigKey(CHECKPOINT_DIR, "<job.state.dir>/checkpoints", "The directory of file checkpoints."),
      new ConfigKey(CHECKPOINT_IMPORT, null, "A CheckpointImport class: the offsets another runtime checkpointed, taken when the job has no checkpoint of its own (set by the Samza translator)."),
      new ConfigKey(SHUTDOWN_MS, "30000", "How long a stop waits for containers to commit and close, in ms."),
      new ConfigKey(MAX_CONCURRENCY, "1", "Messages in flight per task (async tasks, or sync tasks on the worker pool)."),
      new ConfigKey(ORDERING, "partition", "Which in-flight messages may overlap: partition (concurrency 1: strict order) | key (same key never overlaps) | none."),
      new ConfigKey(CALLBACK_TIMEOUT_MS, "60000", "Fail a message whose callback has not come after this many ms (task.error.policy applies)."),
      new ConfigKey(POOL_SIZE, "0", "Worker threads that run synchronous (blocking) tasks; 0 runs them inline on the loop thread."),
      new ConfigKey(POOL_VIRTUAL, "false", "Use virtual threads for the worker pool (Java 21+; on 17 it falls back with a log line)."),
      new ConfigKey(CHANGELOG_PARTITION_ORDER, "task-number", "Which changelog partition holds a task's stores: task-number (task k's in partition k) | samza (the rank of the task's Samza name, Partition k, among the job's task names in text order, as Samza 1.x: set by the Samza translator, so that a Samza job moved here, or back, finds its state)."),
      new ConfigKey(RESTORE_THREADS, "the number of processors", "Threads a container applies restored changelog records with: several store instances restore at once, each in order."),
      new ConfigKey(RESTORE_BESIDE_PERCENT, "10", "The most of the time, in percent, the standby and warm-up copies of tasks that run elsewhere take to catch up while this process's containers have input waiting: after each batch they pause in proportion. A task's own restore when it arrives is never paced. 100: they never pause."),
      new ConfigKey(TIMERS_ENABLED, "false", "Record per-batch processing timers (two clock reads per batch)."),
      new ConfigKey(REPORTERS, "", "Comma-separated metrics reporters: log, jmx."),
      new ConfigKey(REPORTER_INTERVAL_MS, "60000", "How often the log reporter writes, in ms."),
      new ConfigKey(HTTP_PORT, "-1", "Serve /metrics (Prometheus), /status (JSON) and / (a status page) on this port; 0: any free port; -1: off."),
      new ConfigKey(HTTP_HOST, "0.0.0.0", "The address the metrics.http.port server listens on."),
      new ConfigKey("systems.<name>.factory", "the built-in system named <name>", "The system's factory: memory, file, or a SystemFactory class name."),
      new ConfigKey("streams.<id>.system", null, "The system the stream lives on (required for every stream used)."),
      new ConfigKey("streams.<id>.physical.name", "<id>", "The stream's name in its system (a topic, a path)."),
      new ConfigKey("streams.<id>.key.serde", "string", "Key serde: bytes, string, long, integer, json, json:<class>, or a Serde class name."),
      new ConfigKey("streams.<id>.value.serde", "string", "Value serde, as for key.serde."),
      new ConfigKey("streams.<id>.priority", "0", "Chooser tier: partitions of higher-priority streams go first."),
      new ConfigKey("streams.<id>.bootstrap", "false", "Read this stream to its head as of start before any other input."),
      new ConfigKey("streams.<id>.offset.default", "oldest", "Where to start without a checkpoint: oldest | upcoming."),
      new ConfigKey("streams.<id>.offset.reset", "false", "Ignore the checkpoint of this stream and start at offset.default."),
      new ConfigKey("streams.<id>.poll.interval.ms", "task.poll.interval.ms", "Overrides the poll interval for this stream's partitions."),
      new ConfigKey("streams.<id>.partitions", "the job's task count", "Partitions of an output stream the system creates."),
      new ConfigKey("streams.<id>.intermediate", "false", "The job writes this stream and reads it back (a repartition): it may be both an input and an output, and is created before it is read."),
      new ConfigKey("stores.<name>.factory", null, "A store's engine: rocksdb (millrace-rocksdb), memory, or a StorageEngineFactory class name."),
      new ConfigKey("stores.<name>.key.serde", "string", "How the store's keys become bytes (and their order)."),
      new ConfigKey("stores.<name>.value.serde", "string", "How the store's values become bytes."),
      new ConfigKey("stores.<name>.changelog", null, "<system>.<stream>: the changelog a restart restores the store from."),
      new ConfigKey("stores.<name>.cache.size", "10000", "Deserialized entries the store keeps in its object cache."),
      new ConfigKey("stores.<name>.write.batch.size", "min(10000, cache.size)", "Dirty entries that flush the cache before a commit."),
      new ConfigKey("stores.<name>.rocksdb.<option>", null, "Any RocksDB option by its native name."),
      new ConfigKey("stores.rocksdb.memory.bytes", "268435456", "The memory of a container's RocksDB stores together."));

  private CoreKeys() {}
}
