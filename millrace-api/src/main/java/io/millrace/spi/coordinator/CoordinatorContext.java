package io.millrace.spi.coordinator;

import io.millrace.api.metrics.MetricsRegistry;
import java.util.List;
import java.util.Map;

/** What a coordinator is told about the job and this process. */
public interface CoordinatorContext {
  /** The job's name ({@code job.name}). */
  String jobName();

  /** The whole job configuration. */
  Map<String, String> jobConfig();

  /** The coordinator's own keys ({@code job.coordinator.*}) with that prefix removed. */
  Map<String, String> coordinatorConfig();

  /** Containers in this process ({@code job.container.count}). */
  int containerCount();

  /** The job's tasks: task k reads partition k of every input that has one. */
  int taskCount();

  /** The job's inputs. */
  List<Input> inputs();

  /** The names of the job's stores, with changelogs or not. */
  List<String> stores();

  /** The job's stores that have changelogs. */
  List<Changelog> changelogs();

  /** The job's metrics. */
  MetricsRegistry metrics();

  /**
   * The partition of each store's changelog that holds task {@code task}'s changes: the task's
   * number, unless the job keeps Samza's order ({@code job.changelog.partition.order=samza}, the
   * rank of the task's Samza name among the job's task names in text order), where they differ
   * past 10 tasks. A coordinator that keeps changelog offsets per task, or asks a changelog's
   * head for a task, goes through this.
   */
  default int changelogPartitionOf(int task) {
    return task;
  }

  /**
   * An input stream of the job.
   *
   * @param streamId the stream's id in the job
   * @param system the system it lives on
   * @param physicalName its name there (a topic)
   * @param partitions its partition count
   * @param systemConfig the system's keys, {@code systems.<system>.} removed
   */
  record Input(String streamId, String system, String physicalName, int partitions,
      Map<String, String> systemConfig) {}

  /**
   * A store's changelog.
   *
   * @param store the store's name
   * @param system the changelog's system
   * @param physicalName its name there (a topic), one partition per task ({@link
   *     #changelogPartitionOf})
   */
  record Changelog(String store, String system, String physicalName) {}
}
