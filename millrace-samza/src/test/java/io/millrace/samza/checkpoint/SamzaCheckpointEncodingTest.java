package io.millrace.samza.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.samza.checkpoint.SamzaCheckpointEncoding.Entry;
import io.millrace.samza.checkpoint.SamzaCheckpointRecord.SamzaPartition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The records the export writes read back as Samza's (the import's reader, which reads what
 * Samza 1.8 writes), and the changelog partition Samza gives each task.
 */
class SamzaCheckpointEncodingTest {
  @Test
  void aKeyIsSamzasCompactJsonInSamzasFieldOrder() {
    assertThat(new String(SamzaCheckpointEncoding.key(1, "Partition 3"), StandardCharsets.UTF_8))
        .isEqualTo("{\"systemstreampartition-grouper-factory\":\"org.apache.samza.container"
            + ".grouper.stream.GroupByPartitionFactory\",\"taskName\":\"Partition 3\","
            + "\"type\":\"checkpoint\"}");
    assertThat(new String(SamzaCheckpointEncoding.key(2, "Partition 3"), StandardCharsets.UTF_8))
        .endsWith("\"type\":\"checkpoint-v2\"}");
  }

  @Test
  void aVersion1RecordReadsBackWithItsInputOffsetsAndChangelogMarker() {
    String id = SamzaCheckpointEncoding.checkpointId(1_795_775_627_505L, 3_000_709_780L);
    assertThat(id).isEqualTo("1795775627505-709780");
    byte[] value = SamzaCheckpointEncoding.v1Value(
        List.of(new Entry("kafka", "page-views", 10, "41"),
            new Entry("kafka", "clicks", 10, "7")),
        List.of(new Entry("kafka", "counts-changelog", 2,
            SamzaCheckpointEncoding.v1Marker(id, 99L))));

    SamzaCheckpointRecord r = SamzaCheckpointRecord.parse(
        SamzaCheckpointEncoding.key(1, "Partition 10"), value);

    assertThat(r.version()).isEqualTo(1);
    assertThat(r.taskName()).isEqualTo("Partition 10");
    assertThat(r.offsets()).isEqualTo(Map.of(
        new SamzaPartition("kafka", "page-views", 10), "41",
        new SamzaPartition("kafka", "clicks", 10), "7",
        new SamzaPartition("kafka", "counts-changelog", 2), "1795775627505-709780:99"));
    assertThat(SamzaCheckpointEncoding.v1Marker(id, null)).isEqualTo("1795775627505-709780:null");
  }

  @Test
  void aVersion2RecordReadsBackWithItsInputOffsets() {
    byte[] value = SamzaCheckpointEncoding.v2Value("1795775709101-812964",
        List.of(new Entry("kafka", "page-views", 0, "7")),
        Map.of("counts", SamzaCheckpointEncoding.v2Marker("kafka", "counts-changelog", 0, 12L)));

    SamzaCheckpointRecord r = SamzaCheckpointRecord.parse(
        SamzaCheckpointEncoding.key(2, "Partition 0"), value);

    assertThat(r.version()).isEqualTo(2);
    assertThat(r.offsets()).isEqualTo(Map.of(new SamzaPartition("kafka", "page-views", 0), "7"));
    assertThat(new String(value, StandardCharsets.UTF_8)).startsWith(
        "{\"checkpoint-id\":\"1795775709101-812964\",\"input-offsets\":{\"kafka.page-views.0\":"
            + "\"7\"},\"state-checkpoint-markers\":{\"" + SamzaCheckpointEncoding.KAFKA_STATE_BACKEND
            + "\":{\"counts\":");
  }

  @Test
  void aTasksChangelogPartitionIsTheRankOfItsNameInTextOrder() {
    // Partition 0, 1, 10, 11, 2, 3, ...: 10 and 11 come before 2.
    assertThat(SamzaCheckpointExport.samzaChangelogPartition(10, 12)).isEqualTo(2);
    assertThat(SamzaCheckpointExport.samzaChangelogPartition(11, 12)).isEqualTo(3);
    assertThat(SamzaCheckpointExport.samzaChangelogPartition(2, 12)).isEqualTo(4);
    assertThat(SamzaCheckpointExport.samzaChangelogPartition(1, 12)).isEqualTo(1);
    for (int t = 0; t < 10; t++) {
      assertThat(SamzaCheckpointExport.samzaChangelogPartition(t, 10)).isEqualTo(t);
    }
  }
}
