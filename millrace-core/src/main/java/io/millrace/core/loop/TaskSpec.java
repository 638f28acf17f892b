package io.millrace.core.loop;

import java.util.List;

/**
 * A task a container is to run, with its input partitions resolved.
 *
 * @param task the task instance
 * @param inputs its input partitions (partition k of each input, for task k)
 */
public record TaskSpec(TaskInstance task, List<PartitionSpec> inputs) {}
