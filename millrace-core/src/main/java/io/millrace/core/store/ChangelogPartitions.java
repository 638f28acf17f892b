package io.millrace.core.store;

import io.millrace.api.config.JobConfig;
import io.millrace.core.config.CoreKeys;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which partition of a store's changelog holds each task's changes
 * ({@value CoreKeys#CHANGELOG_PARTITION_ORDER}). Millrace's own order gives task {@code k}
 * partition {@code k}. Samza 1.x gives each task the partition of its rank among the job's task
 * names, {@code Partition 0} to {@code Partition <n-1>}, sorted as text: with more than 10 tasks
 * {@code Partition 10} comes before {@code Partition 2}. A Samza job moved here keeps Samza's
 * order (the Samza translator sets it), so each task finds its state where Samza left it and Samza
 * finds it there again after.
 */
public final class ChangelogPartitions {
  /** Task {@code k}'s changes in partition {@code k}. */
  public static final String TASK_NUMBER = "task-number";
  /** Samza's order: the rank of {@code Partition k} among the task names in text order. */
  public static final String SAMZA = "samza";

  /** Per task number, its partition; null: the task's number. */
  private final int[] partitionOfTask;

  private ChangelogPartitions(int[] partitionOfTask) {
    this.partitionOfTask = partitionOfTask;
  }

  /** The order a job names, for its {@code tasks} tasks. */
  public static ChangelogPartitions of(JobConfig config, int tasks) {
    String order = config.getChoice(CoreKeys.CHANGELOG_PARTITION_ORDER, TASK_NUMBER, TASK_NUMBER,
        SAMZA);
    return order.equals(SAMZA) ? samza(tasks) : new ChangelogPartitions(null);
  }

  /** Samza's order for a job of {@code tasks} tasks. */
  public static ChangelogPartitions samza(int tasks) {
    Map<String, Integer> byName = new TreeMap<>(); // String's order: Samza sorts its TaskNames so
    for (int task = 0; task < tasks; task++) {
      byName.put("Partition " + task, task);
    }
    int[] partitions = new int[tasks];
    int rank = 0;
    for (int task : byName.values()) {
      partitions[task] = rank++;
    }
    return new ChangelogPartitions(partitions);
  }

  /** The changelog partition of task {@code taskNumber}'s stores. */
  public int of(int taskNumber) {
    return partitionOfTask == null ? taskNumber : partitionOfTask[taskNumber];
  }
}
