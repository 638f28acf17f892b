package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobTranslators;
import io.millrace.core.store.ChangelogPartitions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.samza.container.TaskName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Samza job's tasks keep their stores in the changelog partitions Samza gives them: the rank of
 * the task's name among the job's task names, as Samza's {@link TaskName}s sort (its job model
 * assigns new tasks' changelog partitions in that order).
 */
class SamzaChangelogOrderTest {
  @TempDir Path state;

  /** Task k's changelog partition as Samza 1.8 assigns it: the rank of TaskName "Partition k". */
  private static List<Integer> samzasPartitions(int tasks) {
    TreeSet<TaskName> names = new TreeSet<>();
    for (int k = 0; k < tasks; k++) {
      names.add(new TaskName("Partition " + k));
    }
    List<TaskName> ranked = new ArrayList<>(names);
    List<Integer> partitions = new ArrayList<>();
    for (int k = 0; k < tasks; k++) {
      partitions.add(ranked.indexOf(new TaskName("Partition " + k)));
    }
    return partitions;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 10, 12, 100})
  void millraceGivesEachTaskTheChangelogPartitionSamzaGivesIt(int tasks) {
    ChangelogPartitions partitions = ChangelogPartitions.samza(tasks);
    List<Integer> millrace = new ArrayList<>();
    for (int k = 0; k < tasks; k++) {
      millrace.add(partitions.of(k));
    }

    assertThat(millrace).isEqualTo(samzasPartitions(tasks));
  }

  @Test
  void aSamzaJobIsTranslatedWithSamzasChangelogOrder() {
    Map<String, String> config = SamzaTestJobs.memoryJob(CountPerKeyTask.class, "in", state);
    JobConfig translated = JobTranslators.translate(new JobConfig(config, "job.properties"),
        getClass().getClassLoader());

    assertThat(translated.get("job.changelog.partition.order")).isEqualTo("samza");
  }
}
