package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ChangelogPartitionsTest {
  private static JobConfig order(String order) {
    return new JobConfig(Map.of("job.changelog.partition.order", order), "job.properties");
  }

  @Test
  void byDefaultTaskKsStoresAreInPartitionK() {
    ChangelogPartitions partitions = ChangelogPartitions.of(new JobConfig(Map.of(), "job"), 12);

    assertThat(IntStream.range(0, 12).map(partitions::of)).containsExactly(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  }

  @Test
  void samzasOrderGivesEachTaskTheRankOfItsNameInTextOrder() {
    // Partition 0, 1, 10, 11, 2, 3, ... 9: task 10 is third, task 2 fifth.
    ChangelogPartitions partitions = ChangelogPartitions.of(order("samza"), 12);

    assertThat(IntStream.range(0, 12).map(partitions::of)).containsExactly(
        0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 2, 3);
  }

  @Test
  void samzasOrderIsTheTaskNumberUpToTenTasks() {
    ChangelogPartitions partitions = ChangelogPartitions.samza(10);

    assertThat(IntStream.range(0, 10).map(partitions::of)).containsExactly(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void samzasOrderGivesEveryTaskItsOwnPartition() {
    ChangelogPartitions partitions = ChangelogPartitions.samza(100);

    assertThat(IntStream.range(0, 100).map(partitions::of).sorted())
        .containsExactlyElementsOf(IntStream.range(0, 100).boxed().toList());
    assertThat(partitions.of(10)).isEqualTo(2);
    assertThat(partitions.of(99)).isEqualTo(99);
    assertThat(partitions.of(2)).isEqualTo(12); // after 0, 1, 10-19
  }

  @Test
  void anOrderItDoesNotKnowIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> ChangelogPartitions.of(order("name"), 12))
        .isInstanceOf(ConfigException.class)
        .hasMessage("bad value 'name' for job.changelog.partition.order in job.properties:"
            + " expected one of task-number | samza");
  }
}
