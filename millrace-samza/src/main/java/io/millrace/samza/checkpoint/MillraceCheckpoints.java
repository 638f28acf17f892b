package io.millrace.samza.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.api.config.JobConfig;
import io.millrace.api.metrics.MetricsRegistry;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointStoreFactory;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Reads a job's newest checkpoint of its own, where Millrace keeps it: under {@code
 * job.coordinator=local} the checkpoint store of {@code task.checkpoint.system} (Kafka's
 * compacted topic {@code __millrace-checkpoints-<job>}, the newest record of each task); under
 * {@code job.coordinator=kafka} the coordinator's store, the consumer group's committed offsets
 * (partitions the group never committed from the job's checkpoint topic, as a start would).
 * Either store gives each partition's last message processed (the group's "next offset" less
 * one), the offset Samza's checkpoints hold too: nothing is converted.
 */
final class MillraceCheckpoints {
  private MillraceCheckpoints() {}

  /**
   * The job's checkpoint: each partition's last processed offset, by the job's stream ids
   * (changelog entries, {@code changelog:<store>}, included as the store gives them); empty
   * when the job has none.
   *
   * @param inputs the job's inputs and their partition counts
   */
  static Map<StreamPartition, Long> read(JobSystems systems, List<Input> inputs) {
    JobConfig config = systems.config();
    String coordinator = config.get("job.coordinator", "local");
    if (!coordinator.equals("local")) {
      return readGroup(systems, coordinator, inputs);
    }
    String system = config.get("task.checkpoint.system");
    SystemFactory factory = systems.factory(system);
    if (!(factory instanceof CheckpointStoreFactory stores)) {
      throw config.bad("task.checkpoint.system", system, "a system that keeps checkpoints"
          + " (Kafka)");
    }
    // The store would create a missing topic: a job that has none has no checkpoint.
    String topic = config.get("systems." + system + ".checkpoint.topic",
        "__millrace-checkpoints-" + systems.context(system).jobName());
    try (SystemAdmin admin = factory.admin(systems.context(system))) {
      admin.partitionCount(new io.millrace.spi.system.StreamSpec(topic, topic, null, null));
    } catch (IllegalArgumentException e) {
      return Map.of();
    }
    try (CheckpointStore store = stores.checkpointStore(systems.context(system))) {
      return store.read();
    }
  }

  /** An input as the coordinator is told of it. */
  record Input(String streamId, String system, String physicalName, int partitions) {}

  private static Map<StreamPartition, Long> readGroup(JobSystems systems, String name,
      List<Input> inputs) {
    JobConfig config = systems.config();
    CoordinatorFactory factory = null;
    for (CoordinatorFactory found : ServiceLoader.load(CoordinatorFactory.class,
        systems.loader())) {
      if (name.equals(found.shortName()) || name.equals(found.getClass().getName())) {
        factory = found;
      }
    }
    if (factory == null) {
      throw config.bad("job.coordinator", name, "local, or kafka with millrace-kafka on the"
          + " class path");
    }
    JobCoordinator coordinator = factory.coordinator(context(config, inputs));
    try {
      CheckpointStore store = coordinator.checkpoints().orElse(null);
      if (store == null) {
        throw config.bad("job.coordinator", name, "a coordinator that keeps checkpoints (kafka)");
      }
      return store.read();
    } finally {
      coordinator.close();
    }
  }

  private static CoordinatorContext context(JobConfig config, List<Input> inputs) {
    int tasks = inputs.stream().mapToInt(Input::partitions).max().orElse(0);
    List<CoordinatorContext.Input> described = new ArrayList<>();
    for (Input in : inputs) {
      described.add(new CoordinatorContext.Input(in.streamId(), in.system(), in.physicalName(),
          in.partitions(), config.withPrefix("systems." + in.system() + ".")));
    }
    List<String> stores = new ArrayList<>(config.idsUnder("stores"));
    stores.remove("rocksdb"); // the engine's own keys, stores.rocksdb.*
    List<CoordinatorContext.Changelog> changelogs = new ArrayList<>();
    for (String store : stores) {
      String changelog = config.get("stores." + store + ".changelog");
      if (changelog != null) {
        int dot = changelog.indexOf('.');
        changelogs.add(new CoordinatorContext.Changelog(store, changelog.substring(0, dot),
            changelog.substring(dot + 1)));
      }
    }
    return new CoordinatorContext() {
      @Override
      public String jobName() {
        return config.required("job.name");
      }

      @Override
      public Map<String, String> jobConfig() {
        return config.asMap();
      }

      @Override
      public Map<String, String> coordinatorConfig() {
        return config.withPrefix("job.coordinator.");
      }

      @Override
      public int containerCount() {
        return config.getInt("job.container.count", 1, 1);
      }

      @Override
      public int taskCount() {
        return tasks;
      }

      @Override
      public List<Input> inputs() {
        return described;
      }

      @Override
      public List<String> stores() {
        return stores;
      }

      @Override
      public List<Changelog> changelogs() {
        return changelogs;
      }

      @Override
      public int changelogPartitionOf(int task) {
        // The translation keeps Samza's order (job.changelog.partition.order=samza).
        return "samza".equals(config.get("job.changelog.partition.order")) && task < tasks
            ? SamzaCheckpointExport.samzaChangelogPartition(task, tasks) : task;
      }

      @Override
      public MetricsRegistry metrics() {
        return JobSystems.NO_METRICS;
      }
    };
  }
}
