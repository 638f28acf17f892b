package io.millrace.core.job;

import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;

/**
 * A stream of the job with the settings the runtime needs.
 *
 * @param spec the stream as systems see it
 * @param system the system's name
 * @param priority chooser priority
 * @param bootstrap read to head before other inputs
 * @param offsetDefault where to start without a checkpoint
 * @param reset ignore the checkpoint
 * @param pollIntervalNanos the poll interval of its partitions
 * @param outputPartitions partitions wanted for an output the system creates, or -1
 * @param intermediate the job writes the stream and reads it back (a repartition)
 */
public record StreamInfo(StreamSpec spec, String system, int priority, boolean bootstrap,
    StartPosition offsetDefault, boolean reset, long pollIntervalNanos, int outputPartitions,
    boolean intermediate) {}
