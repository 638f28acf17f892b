package io.millrace.core.job;

import io.millrace.api.StreamPartition;
import io.millrace.api.system.SystemAdmin;
import io.millrace.api.system.SystemFactory;
import io.millrace.api.checkpoint.CheckpointStore;
import io.millrace.api.config.JobConfig;
import io.millrace.core.loop.ErrorPolicy;
import io.millrace.core.loop.LoopSettings;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.store.StoreSpec;
import java.lang.reflect.Constructor;
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
    java.nio.file.Path storesDir) {

  /** The task partition numbers of a container: task k runs in container k mod count. */
  public int[] tasksOf(int containerId) {
    return java.util.stream.IntStream.range(0, taskCount)
        .filter(t -> t % containerCount == containerId)
        .toArray();
  }

  /** Closes the admins and the checkpoint store. */
  public void close() {
    admins.values().forEach(SystemAdmin::close);
    checkpointStore.close();
  }
}
