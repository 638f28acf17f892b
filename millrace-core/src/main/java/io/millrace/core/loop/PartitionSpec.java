package io.millrace.core.loop;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;

/**
 * An input partition a task is to read, resolved against its system and its checkpoint: what the
 * loop needs to register it with its consumer and to schedule it.
 *
 * @param id the partition
 * @param stream the stream, as its system sees it
 * @param consumer the container's consumer of the partition's system
 * @param start where reading starts
 * @param checkpointed the checkpointed offset it resumes after, or {@link CheckpointStore#NONE}
 * @param priority its chooser priority
 * @param pollIntervalNanos its poll interval
 * @param bootstrap whether it is read to its head before any other input
 * @param newestAtStart its newest offset now (for bootstrap), -1 if empty
 * @param progressStart the offset progress through a bounded input starts at
 * @param progressEnd the offset a bounded input ends at, or -1 if unbounded
 */
public record PartitionSpec(StreamPartition id, StreamSpec stream, SystemConsumer consumer,
    StartPosition start, long checkpointed, int priority, long pollIntervalNanos,
    boolean bootstrap, long newestAtStart, long progressStart, long progressEnd) {}
