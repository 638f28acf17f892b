package io.millrace.spi.checkpoint;

import io.millrace.spi.system.SystemContext;

/**
 * Implemented by a system's factory that can keep checkpoints ({@code task.checkpoint.system} set
 * to that system's name), such as Kafka's compacted checkpoint topic. The core keeps file
 * checkpoints itself and needs to know no other system.
 */
public interface CheckpointStoreFactory {
  /**
   * The job's checkpoint store; called once per job process, from the thread that starts it.
   *
   * @param context the system's context (container id -1: job-wide)
   */
  CheckpointStore checkpointStore(SystemContext context);
}
