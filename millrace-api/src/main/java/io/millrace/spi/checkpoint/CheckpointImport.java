package io.millrace.spi.checkpoint;

import io.millrace.api.StreamPartition;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import java.util.Map;

/**
 * The offsets a job checkpointed under another runtime, read once when it starts here with no
 * checkpoint of its own: how a running job moves over without reading its inputs again from
 * {@code offset.default}. Named by {@code task.checkpoint.import} (a class with a public
 * no-argument constructor); a job translator sets it for the jobs it knows (Samza's checkpoint
 * topic, {@code millrace-samza}). Once the job has committed here its own checkpoints win, and
 * the import is not read again.
 */
public interface CheckpointImport {
  /**
   * The offsets the other runtime last committed, by partition as this job names them (its
   * stream ids); each is the last message processed, a restart resumes after it. Empty when the
   * other runtime left none.
   *
   * @throws CheckpointException naming what cannot be read (a topic, a partition, an offset): the
   *     job then stops at start, having committed nothing
   */
  Map<StreamPartition, Long> read(Source source);

  /** A short description for the start log, e.g. the topic read. */
  String describe(JobConfig config);

  /** What an import may read: the job's configuration and its systems. */
  interface Source {
    /** The job's configuration, in Millrace's keys (and a translator's own). */
    JobConfig config();

    /** The admin of one of the job's systems (shared: not to be closed). */
    SystemAdmin admin(String system);

    /**
     * A new consumer of one of the job's systems, for the import alone: the caller registers
     * partitions from index 0, starts it and stops it.
     */
    SystemConsumer consumer(String system);
  }
}
