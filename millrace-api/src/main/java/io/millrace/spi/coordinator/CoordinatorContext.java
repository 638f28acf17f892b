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
   * @param physicalName its name there (a topic), one partition per task
   */
  record Changelog(String store, String system, String physicalName) {}
}
