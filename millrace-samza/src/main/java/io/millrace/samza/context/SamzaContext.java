package io.millrace.samza.context;

import io.millrace.api.Collector;
import io.millrace.api.TaskContext;
import io.millrace.api.config.JobConfig;
import io.millrace.samza.metrics.SamzaMetricsRegistry;
import io.millrace.samza.serde.SerdeRegistry;
import java.util.Set;
import java.util.function.Function;
import org.apache.samza.config.MapConfig;
import org.apache.samza.context.ApplicationContainerContext;
import org.apache.samza.context.ApplicationTaskContext;
import org.apache.samza.context.ContainerContext;
import org.apache.samza.context.Context;
import org.apache.samza.context.ExternalContext;
import org.apache.samza.context.JobContext;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.TaskCoordinator;

/**
 * The {@link Context} a Samza task's {@code init} gets: the job's Samza configuration, name and
 * id; the container's and the task's metrics; the task's stores and callback scheduler. A
 * low-level job has no application or external context (null, as on Samza without factories).
 */
public final class SamzaContext implements Context {
  private final SamzaMetricsRegistry taskMetrics;
  private final io.millrace.api.metrics.MetricsRegistry millraceMetrics;
  private final JobContext job;
  private final ContainerContext container;
  private final org.apache.samza.context.TaskContext task;

  /**
   * @param millrace the task's Millrace context
   * @param config the Samza job's own keys
   * @param jobName Samza's job name
   * @param jobId Samza's job id
   * @param serdes the task's serdes
   * @param partitions the task's input partitions, as Samza names them
   * @param collectors Samza's collector for a Millrace one (for scheduled callbacks)
   * @param coordinators Samza's coordinator for a Millrace one
   */
  public SamzaContext(TaskContext millrace, JobConfig config, String jobName, String jobId,
      SerdeRegistry serdes, Set<SystemStreamPartition> partitions,
      Function<Collector, MessageCollector> collectors,
      Function<io.millrace.api.TaskCoordinator, TaskCoordinator> coordinators) {
    this.job = new SamzaJobContext(new MapConfig(config.asMap()), jobName, jobId);
    this.millraceMetrics = millrace.metrics();
    this.container = new SamzaContainerContext(SamzaMetricsRegistry.containerOf(millraceMetrics));
    this.taskMetrics = new SamzaMetricsRegistry(millrace.metrics(),
        "task-" + millrace.partitionNumber());
    this.task = new SamzaTaskContext(millrace, config, serdes, partitions, taskMetrics,
        collectors, coordinators);
  }

  /** The task left: its metrics stop being reported (the container's with the last task). */
  public void close() {
    taskMetrics.close();
    SamzaMetricsRegistry.releaseContainer(millraceMetrics);
  }

  @Override
  public JobContext getJobContext() {
    return job;
  }

  @Override
  public ContainerContext getContainerContext() {
    return container;
  }

  @Override
  public org.apache.samza.context.TaskContext getTaskContext() {
    return task;
  }

  @Override
  public ApplicationContainerContext getApplicationContainerContext() {
    return null;
  }

  @Override
  public ApplicationTaskContext getApplicationTaskContext() {
    return null;
  }

  @Override
  public ExternalContext getExternalContext() {
    return null;
  }
}
