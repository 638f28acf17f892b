package io.millrace.samza.checkpoint;

import io.millrace.api.Serde;
import io.millrace.api.StreamPartition;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.checkpoint.SamzaCheckpointEncoding.Entry;
import io.millrace.samza.config.SamzaJob;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemProducer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The way back to Samza: writes a job's newest Millrace checkpoint into Samza's checkpoint topic
 * ({@code __samza_checkpoint_ver_1_for_<job.name>_<job.id>}, partition 0 of {@code
 * task.checkpoint.system}) as Samza 1.8's Kafka checkpoint manager writes its own, so that the
 * job, started on Samza again with the same properties, resumes each input partition right
 * after the last message Millrace processed. The inverse of {@link SamzaCheckpointImport}.
 *
 * <p>Per task ({@code Partition k}, Samza's {@code GroupByPartitionFactory}) one record of each
 * version Samza writes ({@code task.checkpoint.write.versions}, 1 and 2 by default), newer than
 * anything Samza wrote before, so Samza's reader (which keeps the newest of a task) takes them.
 * The offsets are Millrace's as they are: both count the last message processed. Each record
 * also holds each store's changelog position, the changelog's newest offset now, in the
 * partition Samza gives the task (the rank of its name in text order, as Millrace writes it
 * under {@code job.changelog.partition.order=samza}): Samza's transactional restore (on by
 * default in 1.8) then restores the whole changelog, Millrace's writes included, and trims
 * nothing.
 *
 * <p>Nothing is written unless everything checks: the job has a checkpoint here, every partition
 * it names is one of the job's inputs, each store's changelog, if it exists, has each task's
 * partition, no Kafka transaction is open on a task's changelog partition, and Samza's topic has
 * the one partition Samza requires.
 */
public final class SamzaCheckpointExport {
  /** How long an open transaction on a changelog may take to show as ended (its markers). */
  private static final long MARKERS_WAIT_NANOS = 2_000_000_000L;
  static final String KAFKA_CHECKPOINTS =
      "org.apache.samza.checkpoint.kafka.KafkaCheckpointManagerFactory";
  private static final Serde<byte[]> BYTES = SamzaCheckpointImport.BYTES;

  private SamzaCheckpointExport() {}

  /**
   * What was written: Samza's checkpoint topic, and per task its input offsets as Samza names
   * them ({@code kafka.page-views.0=41}).
   */
  public record Exported(String topic, String system, Map<String, Map<String, Long>> tasks,
      List<Integer> versions) {}

  /**
   * Checks that a Samza job's keys let its checkpoint go back to Samza this way: Samza's Kafka
   * checkpoints, Samza's default grouper, checkpoint versions Samza knows, and, where the job
   * wrote its changelogs in Kafka transactions here, Samza reading them as committed data.
   *
   * @param file the Samza job's keys, as Samza runs them
   * @throws ConfigException naming the key
   */
  public static void checkExportable(JobConfig file) {
    String factory = file.get("task.checkpoint.factory");
    if (!KAFKA_CHECKPOINTS.equals(factory)) {
      throw file.bad("task.checkpoint.factory", factory, KAFKA_CHECKPOINTS + ": Samza's Kafka"
          + " checkpoints are what the export writes, and what Samza resumes from");
    }
    String grouper = file.get("job.systemstreampartition.grouper.factory",
        SamzaCheckpointEncoding.GROUP_BY_PARTITION);
    if (!grouper.equals(SamzaCheckpointEncoding.GROUP_BY_PARTITION)) {
      throw file.bad("job.systemstreampartition.grouper.factory", grouper,
          SamzaCheckpointEncoding.GROUP_BY_PARTITION + ": Millrace's task k reads partition k of"
              + " every input, Samza's task 'Partition k' under that grouper alone");
    }
    writeVersions(file);
    checkReadsCommitted(file);
  }

  /**
   * A job that ran here in Kafka transactions (under exactly-once, and under {@code
   * job.coordinator=kafka}, whose commits are transactions) has, in its changelogs, the writes of
   * every commit that failed (a crash, a fence, a task failure), aborted. Samza's consumers read
   * {@code read_uncommitted} unless {@code systems.<system>.consumer.isolation.level} says
   * otherwise (Samza passes its {@code consumer.*} keys to Kafka's consumer), and its restore
   * would apply those writes: a count would hold an input that Samza then processes again.
   */
  private static void checkReadsCommitted(JobConfig file) {
    String coordinator = file.get("job.coordinator");
    boolean transactional = "exactly-once".equals(file.get("task.processing.guarantee"))
        || "kafka".equals(coordinator);
    if (!transactional) {
      return;
    }
    String how = "kafka".equals(coordinator) ? "job.coordinator=kafka"
        : "task.processing.guarantee=exactly-once";
    for (String store : file.idsUnder("stores")) {
      String changelog = file.get("stores." + store + ".changelog");
      if (changelog == null || changelog.indexOf('.') < 0) {
        continue;
      }
      String key = "systems." + changelog.substring(0, changelog.indexOf('.'))
          + ".consumer.isolation.level";
      String level = file.get(key, "read_uncommitted");
      if (!level.equals("read_committed")) {
        throw file.bad(key, level, "read_committed: store " + store + "'s changelog "
            + changelog + " was written in Kafka transactions here (" + how + "), where a"
            + " commit that failed leaves its writes in it, aborted, and Samza's restore reads"
            + " them unless its consumers read committed data only: set the key in the job's"
            + " file for Samza (it changes what Samza reads of a topic written in transactions"
            + " only)");
      }
    }
  }

  /**
   * Exports the job's checkpoint.
   *
   * @param job the Samza job translated to Millrace's keys (its own kept under {@code samza.}),
   *     as it runs here
   * @param loader the class loader of the job's classes (its task, serdes)
   * @param clock the time the checkpoint id is made from (epoch millis)
   * @throws ConfigException naming the key, when the job cannot go back this way
   * @throws CheckpointException naming the job and what is wrong, when its checkpoint cannot be
   *     exported; nothing was written
   */
  public static Exported export(JobConfig job, ClassLoader loader,
      java.util.function.LongSupplier clock) {
    JobConfig file = new JobConfig(job.withPrefix(SamzaJob.ORIGINAL), job.source());
    checkExportable(file);
    List<Integer> versions = writeVersions(file);
    String jobName = job.required("job.name");
    JobSystems systems = new JobSystems(job, loader);
    JobSystems plain = systems.plain();
    Map<String, SystemAdmin> admins = new LinkedHashMap<>();
    Map<String, SystemAdmin> committedAdmins = new LinkedHashMap<>();
    try {
      List<MillraceCheckpoints.Input> inputs = new ArrayList<>();
      for (String id : job.getList("task.inputs")) {
        String system = job.get("streams." + id + ".system");
        String physical = job.get("streams." + id + ".physical.name", id);
        int partitions = admin(admins, plain, system)
            .partitionCount(new StreamSpec(id, physical, BYTES, BYTES));
        inputs.add(new MillraceCheckpoints.Input(id, system, physical, partitions));
      }
      Map<StreamPartition, Long> own = MillraceCheckpoints.read(systems, inputs);
      Map<Integer, List<Entry>> byTask = byTask(jobName, own, inputs);
      String checkpointSystem = job.required("task.checkpoint.system");
      String topic = SamzaCheckpointImport.topic(job);
      StreamSpec spec = new StreamSpec(topic, topic, BYTES, BYTES);
      SystemAdmin admin = admin(admins, plain, checkpointSystem);
      int taskCount = inputs.stream().mapToInt(MillraceCheckpoints.Input::partitions).max()
          .orElse(0);
      String checkpointId = SamzaCheckpointEncoding.checkpointId(clock.getAsLong(),
          System.nanoTime());
      List<Integer> changelogPartitions = new ArrayList<>();
      for (int task : byTask.keySet()) {
        changelogPartitions.add(samzaChangelogPartition(task, taskCount));
      }
      // The end first, then where committed data ends: a transaction begun in between cannot
      // look open. A transaction that has just ended looks open until the broker has written
      // its markers (commitTransaction returns before), so an open one is looked at again for
      // a moment before the export refuses.
      long markersDeadline = System.nanoTime() + MARKERS_WAIT_NANOS;
      Map<String, Map<Integer, Long>> changelogEnds;
      while (true) {
        changelogEnds = changelogOffsets(job, admins, plain, changelogPartitions);
        String open = openTransactions(jobName, job, changelogPartitions, changelogEnds,
            changelogOffsets(job, committedAdmins, plain.committedReader(), changelogPartitions));
        if (open == null) {
          break;
        }
        if (System.nanoTime() - markersDeadline >= 0) {
          throw new CheckpointException(open);
        }
        try {
          Thread.sleep(100); // a command-line tool's wait for the broker, not a hot path
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new CheckpointException(open);
        }
      }
      List<Object[]> records = new ArrayList<>();
      Map<String, Map<String, Long>> exported = new TreeMap<>();
      for (Map.Entry<Integer, List<Entry>> task : byTask.entrySet()) {
        int changelogPartition = samzaChangelogPartition(task.getKey(), taskCount);
        Map<String, Long> changelogs = new TreeMap<>();
        changelogEnds.forEach((store, ends) -> changelogs.put(store,
            ends.get(changelogPartition)));
        records.addAll(taskRecords(SamzaCheckpointEncoding.taskName(task.getKey()),
            task.getValue(), changelogs, changelogPartition, checkpointId, versions));
        Map<String, Long> offsets = new TreeMap<>();
        task.getValue().forEach(e -> offsets.put(e.system() + "." + e.stream() + "."
            + e.partition(), Long.parseLong(e.offset())));
        exported.put(SamzaCheckpointEncoding.taskName(task.getKey()), offsets);
      }
      ensureTopic(admin, spec, checkpointSystem);
      write(plain, checkpointSystem, spec, records);
      return new Exported(topic, checkpointSystem, exported, versions);
    } finally {
      admins.values().forEach(SystemAdmin::close);
      committedAdmins.values().forEach(SystemAdmin::close);
    }
  }

  /**
   * A task's records, {key, value}, one per version.
   *
   * @param changelogs each store's changelog newest offset, keyed {@code store\0system\0topic}
   */
  private static List<Object[]> taskRecords(String taskName, List<Entry> inputs,
      Map<String, Long> changelogs, int changelogPartition, String checkpointId,
      List<Integer> versions) {
    List<Entry> v1Markers = new ArrayList<>();
    Map<String, String> v2Markers = new TreeMap<>();
    changelogs.forEach((changelog, offset) -> {
      String[] store = changelog.split("\0");
      v1Markers.add(new Entry(store[1], store[2], changelogPartition,
          SamzaCheckpointEncoding.v1Marker(checkpointId, offset)));
      v2Markers.put(store[0], SamzaCheckpointEncoding.v2Marker(store[1], store[2],
          changelogPartition, offset));
    });
    List<Object[]> records = new ArrayList<>();
    for (int version : versions) {
      records.add(new Object[] {SamzaCheckpointEncoding.key(version, taskName), version == 1
          ? SamzaCheckpointEncoding.v1Value(inputs, v1Markers)
          : SamzaCheckpointEncoding.v2Value(checkpointId, inputs, v2Markers)});
    }
    return records;
  }

  private static SystemAdmin admin(Map<String, SystemAdmin> admins, JobSystems systems,
      String system) {
    SystemAdmin admin = admins.get(system);
    if (admin == null) {
      admin = systems.factory(system).admin(systems.context(system));
      admins.put(system, admin);
    }
    return admin;
  }

  /** The versions Samza writes ({@code task.checkpoint.write.versions}; 1,2 in Samza 1.8). */
  private static List<Integer> writeVersions(JobConfig file) {
    String key = "task.checkpoint.write.versions";
    List<Integer> versions = new ArrayList<>();
    for (String v : file.getList(key)) {
      if (!v.equals("1") && !v.equals("2")) {
        throw file.bad(key, file.get(key), "checkpoint versions 1 and/or 2, comma-separated");
      }
      versions.add(Integer.parseInt(v));
    }
    return versions.isEmpty() ? List.of(1, 2) : versions;
  }

  /**
   * The checkpoint's input offsets by task, as Samza names the partitions; changelog entries
   * (Millrace's own bookkeeping) left out.
   */
  private static Map<Integer, List<Entry>> byTask(String jobName, Map<StreamPartition, Long> own,
      List<MillraceCheckpoints.Input> inputs) {
    Map<String, MillraceCheckpoints.Input> byId = new LinkedHashMap<>();
    inputs.forEach(in -> byId.put(in.streamId(), in));
    Map<Integer, List<Entry>> byTask = new TreeMap<>();
    for (Map.Entry<StreamPartition, Long> e : sorted(own).values()) {
      StreamPartition p = e.getKey();
      if (p.stream().startsWith("changelog:")) {
        continue;
      }
      MillraceCheckpoints.Input in = byId.get(p.stream());
      if (in == null || !in.system().equals(p.system())) {
        throw new CheckpointException("job " + jobName + "'s checkpoint names stream '"
            + p.stream() + "' on system '" + p.system() + "' (partition " + p.partition()
            + ", offset " + e.getValue() + "), which is not one of its inputs (task.inputs: "
            + String.join(", ", byId.keySet()) + "): nothing was written to Samza's checkpoint"
            + " topic. Export with the properties the job last ran with here");
      }
      if (p.partition() < 0 || p.partition() >= in.partitions()) {
        throw new CheckpointException("job " + jobName + "'s checkpoint names partition "
            + p.partition() + " of input " + p.stream() + ", which has " + in.partitions()
            + " partitions: nothing was written to Samza's checkpoint topic");
      }
      byTask.computeIfAbsent(p.partition(), k -> new ArrayList<>()).add(new Entry(
          in.system(), in.physicalName(), p.partition(), Long.toString(e.getValue())));
    }
    if (byTask.isEmpty()) {
      throw new CheckpointException("job " + jobName + " has no checkpoint of its own here"
          + " (it never committed on Millrace, or its checkpoint was deleted): nothing was"
          + " written to Samza's checkpoint topic, which still holds what Samza last wrote");
    }
    return byTask;
  }

  private static Map<String, Map.Entry<StreamPartition, Long>> sorted(
      Map<StreamPartition, Long> own) {
    Map<String, Map.Entry<StreamPartition, Long>> sorted = new TreeMap<>();
    own.entrySet().forEach(e -> sorted.put(e.getKey().system() + "\0" + e.getKey().stream()
        + "\0" + String.format("%010d", e.getKey().partition()), e));
    return sorted;
  }

  /**
   * The changelog partition Samza gives task {@code Partition k} of a job of {@code tasks}
   * tasks: the rank of its name among the task names in text order.
   */
  static int samzaChangelogPartition(int task, int tasks) {
    TreeSet<String> names = new TreeSet<>();
    for (int t = 0; t < tasks; t++) {
      names.add(SamzaCheckpointEncoding.taskName(t));
    }
    return names.headSet(SamzaCheckpointEncoding.taskName(task)).size();
  }

  /**
   * Each store's changelog newest offset in each of {@code partitions} (null when empty, or when
   * there is no changelog yet: an empty one, as Samza writes it), keyed {@code
   * store\0system\0topic}.
   */
  private static Map<String, Map<Integer, Long>> changelogOffsets(JobConfig job,
      Map<String, SystemAdmin> admins, JobSystems systems, List<Integer> partitions) {
    Map<String, Map<Integer, Long>> offsets = new TreeMap<>();
    for (String store : job.idsUnder("stores")) {
      String changelog = job.get("stores." + store + ".changelog");
      if (changelog == null) {
        continue;
      }
      int dot = changelog.indexOf('.');
      String system = changelog.substring(0, dot);
      String topic = changelog.substring(dot + 1);
      SystemAdmin admin = admin(admins, systems, system);
      StreamSpec spec = new StreamSpec(topic, topic, BYTES, BYTES);
      Map<Integer, Long> newest = new TreeMap<>();
      int count;
      try {
        count = admin.partitionCount(spec);
      } catch (IllegalArgumentException missing) {
        partitions.forEach(p -> newest.put(p, null)); // no changelog yet: empty
        offsets.put(store + "\0" + system + "\0" + topic, newest);
        continue;
      }
      checkHasPartitions(job, store, changelog, count, partitions);
      admin.metadata(spec, partitions).forEach((p, head) -> newest.put(p, head.isEmpty() ? null
          : head.newest()));
      offsets.put(store + "\0" + system + "\0" + topic, newest);
    }
    return offsets;
  }

  /**
   * A changelog that exists without some of the tasks' partitions (recreated smaller, or the
   * file names another topic) is refused: marking those tasks' state empty would have Samza
   * count their keys from nothing.
   */
  private static void checkHasPartitions(JobConfig job, String store, String changelog,
      int count, List<Integer> partitions) {
    TreeSet<Integer> missing = new TreeSet<>();
    for (int p : partitions) {
      if (p >= count) {
        missing.add(p);
      }
    }
    if (!missing.isEmpty()) {
      throw new CheckpointException("job " + job.required("job.name") + ": store " + store
          + "'s changelog " + changelog + " has " + count + " partition(s), without partition(s) "
          + missing + " that Samza restores the job's tasks from: nothing was written to Samza's"
          + " checkpoint topic. A changelog needs a partition per task: export with the"
          + " properties the job last ran with here, or give the topic back its partitions");
    }
  }

  /**
   * Why the export must refuse, if a Kafka transaction is open on a task's changelog partition (its
   * end, {@code ends}, past what a reader of committed data reaches, {@code stable}). Samza reads
   * the changelogs as committed data (the export asks for it): its restore would see the
   * partition end before the open transaction, take the position exported past it for one out
   * of range, and restore only up to the open transaction, without what was committed after it
   * (a killed process's transaction under {@code job.coordinator=kafka}, which the export cannot
   * fence, with the writes of the process that took its tasks after it; {@code
   * SamzaGroupCrashTripTest}).
   */
  private static String openTransactions(String jobName, JobConfig job,
      List<Integer> partitions, Map<String, Map<Integer, Long>> ends,
      Map<String, Map<Integer, Long>> stable) {
    for (Map.Entry<String, Map<Integer, Long>> store : ends.entrySet()) {
      List<Integer> open = new ArrayList<>();
      for (int p : new TreeSet<>(partitions)) {
        Long end = store.getValue().get(p);
        Long committed = stable.get(store.getKey()).get(p);
        if (end != null && (committed == null || committed < end)) {
          open.add(p);
        }
      }
      if (!open.isEmpty()) {
        String[] name = store.getKey().split("\0");
        String when = "kafka".equals(job.get("job.coordinator"))
            ? "a process killed under job.coordinator=kafka leaves its transaction open until"
                + " the broker aborts it, its transaction.timeout.ms after it began (four"
                + " task.commit.ms, at least 10 s, unless systems.<system>.producer."
                + "transaction.timeout.ms says otherwise)"
            : "the broker aborts a transaction its writer left open its transaction.timeout.ms"
                + " after it began";
        return ("job " + jobName + ": a Kafka transaction is open on store "
            + name[0] + "'s changelog " + name[1] + "." + name[2] + " partition(s) " + open
            + ", and Samza would restore only up to it, without what was committed after it:"
            + " nothing was written to Samza's checkpoint topic. If the job still runs here,"
            + " stop it; " + when + ": export again then");
      }
    }
    return null;
  }

  /** Samza's checkpoint topic: created as Samza creates it (1 partition, compacted) if missing. */
  private static void ensureTopic(SystemAdmin admin, StreamSpec spec, String system) {
    int partitions;
    try {
      partitions = admin.partitionCount(spec);
    } catch (IllegalArgumentException missing) {
      admin.ensureChangelog(spec, 1);
      return;
    }
    if (partitions != 1) {
      throw new CheckpointException("Samza's checkpoint topic " + spec.physicalName()
          + " on system " + system + " has " + partitions + " partitions, where Samza requires"
          + " 1: nothing was written");
    }
  }

  private static void write(JobSystems systems, String system, StreamSpec spec,
      List<Object[]> records) {
    SystemProducer producer = systems.factory(system).producer(systems.context(system));
    producer.register(0, spec, 1);
    producer.start();
    try {
      for (Object[] r : records) {
        producer.send(0, 0, r[0], r[1], -1);
      }
      producer.flush();
    } finally {
      producer.stop();
    }
  }
}
