package io.millrace.core.job;

import static io.millrace.core.config.CoreKeys.COPARTITION_PREFIX;
import static io.millrace.core.config.CoreKeys.TASK_INPUTS;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code task.copartition.<group>}: the job's input streams read together by key (a join's two
 * sides, an aggregate of merged streams), by group. They size the intermediate streams created
 * with them, and the job stops at planning when a group's streams are not co-partitioned.
 */
final class CopartitionGroups {
  private final JobConfig config;
  private final Map<String, List<String>> groups;

  private CopartitionGroups(JobConfig config, Map<String, List<String>> groups) {
    this.config = config;
    this.groups = groups;
  }

  /** The job's groups; a stream that is not one of {@code inputs} is refused naming its key. */
  static CopartitionGroups of(JobConfig config, List<String> inputs) {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    for (String key : new TreeSet<>(config.asMap().keySet())) {
      if (!key.startsWith(COPARTITION_PREFIX)) {
        continue;
      }
      List<String> streams = config.getList(key);
      for (String stream : streams) {
        if (!inputs.contains(stream)) {
          throw config.bad(key, config.get(key), "input stream ids of the job (" + TASK_INPUTS
              + ": " + String.join(",", inputs) + "); " + stream + " is not one");
        }
      }
      groups.put(key.substring(COPARTITION_PREFIX.length()), streams);
    }
    return new CopartitionGroups(config, groups);
  }

  /**
   * The partitions an intermediate input is created with by default: those of the streams it is
   * co-partitioned with that exist already, else one per task.
   */
  int partitionsOf(String input, Map<String, Integer> counts, int taskCount) {
    for (List<String> group : groups.values()) {
      if (group.contains(input)) {
        for (String other : group) {
          if (counts.containsKey(other)) {
            return counts.get(other);
          }
        }
      }
    }
    return taskCount;
  }

  /** Each group's streams have as many partitions, or the job stops here. */
  void check(Map<String, Integer> counts) {
    for (Map.Entry<String, List<String>> group : groups.entrySet()) {
      String first = group.getValue().get(0);
      for (String other : group.getValue()) {
        if (!counts.get(other).equals(counts.get(first))) {
          throw new ConfigException("streams " + first + " (" + counts.get(first)
              + " partitions) and " + other + " (" + counts.get(other) + " partitions) are read "
              + "together by key by " + group.getKey() + " (" + COPARTITION_PREFIX
              + group.getKey() + "=" + String.join(",", group.getValue()) + " in "
              + config.source() + "), so they must be co-partitioned: task k reads partition k "
              + "of each, and a key's records and state meet in one task only if both have as "
              + "many partitions and put a key in the same one. Give them the same partition "
              + "count, or change the key of one side so that it is repartitioned");
        }
      }
    }
  }
}
