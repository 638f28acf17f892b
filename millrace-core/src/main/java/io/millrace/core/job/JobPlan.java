package io.millrace.core.job;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.coordinator.CoordinatorContext;
import io.millrace.spi.coordinator.CoordinatorFactory;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemFactory;
import io.millrace.core.config.CoreKeys;
import io.millrace.core.loop.ErrorPolicy;
import io.millrace.core.loop.LoopSettings;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.store.ChangelogPartitions;
import io.millrace.core.store.StoreSpec;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A validated job, ready to run: its streams and systems, partition counts, tasks, checkpoints and
 * loop settings. {@link JobPlanner} makes it; {@link ContainerFactory} turns it into run loops.
 */
public record JobPlan(
    JobConfig config,
    String jobName,
    Constructor<?> taskConstructor,
    Map<String, StreamInfo> streams,
    List<String> inputs,
    List<String> outputs,
    Map<String, Integer> partitionCounts,
    int taskCount,
    int containerCount,
    Map<String, SystemFactory> factories,
    Map<String, SystemAdmin> admins,
    CheckpointStore checkpointStore,
    Map<StreamPartition, Long> checkpoint,
    LoopSettings settings,
    ErrorPolicy errorPolicy,
    String deadLetterStream,
    DefaultMetricsRegistry metrics,
    long shutdownMillis,
    List<StoreSpec> stores,
    java.nio.file.Path storesDir,
    CoordinatorFactory coordinatorFactory) {

  /** What the job's coordinator is told about the job and this process. */
  public CoordinatorContext coordinatorContext() {
    List<CoordinatorContext.Input> in = new ArrayList<>();
    for (String input : inputs) {
      StreamInfo info = streams.get(input);
      in.add(new CoordinatorContext.Input(input, info.system(), info.spec().physicalName(),
          partitionCounts.get(input), config.withPrefix("systems." + info.system() + ".")));
    }
    List<CoordinatorContext.Changelog> logs = new ArrayList<>();
    for (StoreSpec store : stores) {
      if (store.hasChangelog()) {
        logs.add(new CoordinatorContext.Changelog(store.name(), store.changelogSystem(),
            store.changelogStream()));
      }
    }
    return new DefaultCoordinatorContext(jobName, config.asMap(),
        config.withPrefix(CoreKeys.COORDINATOR + "."), containerCount, taskCount, List.copyOf(in),
        stores.stream().map(StoreSpec::name).toList(), List.copyOf(logs), metrics,
        changelogPartitions());
  }

  /** Which changelog partition holds each task's stores. */
  public ChangelogPartitions changelogPartitions() {
    return ChangelogPartitions.of(config, taskCount);
  }

  /** This process's coordinator: which tasks each container runs. */
  public JobCoordinator newCoordinator() {
    return coordinatorFactory.coordinator(coordinatorContext());
  }

  /** Closes the admins and the checkpoint store. */
  public void close() {
    admins.values().forEach(SystemAdmin::close);
    checkpointStore.close();
  }
}
