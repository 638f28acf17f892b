package io.millrace.spi.system;

import io.millrace.api.metrics.MetricsRegistry;
import java.util.Map;

/** What a system is told when the runtime creates its parts. */
public interface SystemContext {
  /** The system's name ({@code systems.<name>.*}). */
  String systemName();

  /** The job's name ({@code job.name}). */
  String jobName();

  /** The container's id (0-based), or -1 for the job-wide admin. */
  int containerId();

  /** This system's keys with the {@code systems.<name>.} prefix removed. */
  Map<String, String> systemConfig();

  /**
   * The keys of one stream with the {@code streams.<id>.} prefix removed.
   *
   * @param streamId a stream id of the job
   */
  Map<String, String> streamConfig(String streamId);

  /** The whole job configuration. */
  Map<String, String> jobConfig();

  /** The container's metrics (or the job's, for the admin). */
  MetricsRegistry metrics();

  /**
   * The bytes a container's partition buffers may hold together ({@code
   * task.buffer.max.total.bytes}): a consumer that fetches ahead on a thread of its own sizes what
   * it keeps per partition from this share, so memory stays bounded whatever the partition count.
   */
  default long containerBufferBytes() {
    return 32L << 20;
  }
}
