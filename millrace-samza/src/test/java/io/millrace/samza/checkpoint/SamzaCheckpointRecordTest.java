package io.millrace.samza.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.samza.checkpoint.SamzaCheckpointRecord.SamzaPartition;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Samza 1.8's checkpoint records, byte for byte as its Kafka checkpoint manager writes them. */
class SamzaCheckpointRecordTest {
  private static final String GROUPER =
      "org.apache.samza.container.grouper.stream.GroupByPartitionFactory";

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] key(String type, String task) {
    return utf8("{\"systemstreampartition-grouper-factory\":\"" + GROUPER + "\",\"taskName\":\""
        + task + "\",\"type\":\"" + type + "\"}");
  }

  @Test
  void aVersion1CheckpointGivesItsInputOffsetsAndKeepsAChangelogsStateMarkerAsText() {
    SamzaCheckpointRecord r = SamzaCheckpointRecord.parse(key("checkpoint", "Partition 1"), utf8(
        "{\"SystemStreamPartition [kafka, page-views, 1]\":{\"system\":\"kafka\","
            + "\"partition\":\"1\",\"offset\":\"41\",\"stream\":\"page-views\"},"
            + "\"SystemStreamPartition [kafka, counts-changelog, 1]\":{\"system\":\"kafka\","
            + "\"partition\":\"1\",\"offset\":\"1795775627505-709780:null\","
            + "\"stream\":\"counts-changelog\"},"
            + "\"SystemStreamPartition [kafka, other-changelog, 1]\":{\"system\":\"kafka\","
            + "\"partition\":\"1\",\"offset\":null,\"stream\":\"other-changelog\"}}"));
    assertThat(r.version()).isEqualTo(1);
    assertThat(r.taskName()).isEqualTo("Partition 1");
    assertThat(r.offsets()).isEqualTo(Map.of(
        new SamzaPartition("kafka", "page-views", 1), "41",
        new SamzaPartition("kafka", "counts-changelog", 1), "1795775627505-709780:null"));
  }

  @Test
  void aVersion2CheckpointGivesItsInputOffsetsByPartitionName() {
    SamzaCheckpointRecord r = SamzaCheckpointRecord.parse(key("checkpoint-v2", "Partition 0"),
        utf8("{\"checkpoint-id\":\"1795775709101-812964\",\"input-offsets\":"
            + "{\"kafka.page-views.0\":\"7\"},\"state-checkpoint-markers\":{\"org.apache.samza"
            + ".storage.KafkaChangelogStateBackendFactory\":{\"counts\":\"{}\"}}}"));
    assertThat(r.version()).isEqualTo(2);
    assertThat(r.offsets())
        .isEqualTo(Map.of(new SamzaPartition("kafka", "page-views", 0), "7"));
  }

  @Test
  void aKeyOfAnotherTypeIsSkippedAsSamzaSkipsIt() {
    assertThat(SamzaCheckpointRecord.parse(key("changelog-mapping", "Partition 0"), null))
        .isNull();
  }

  @Test
  void bytesThatAreNotSamzasSayWhatIsWrong() {
    assertThatThrownBy(() -> SamzaCheckpointRecord.parse(utf8("not json"), utf8("{}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("its key is not a JSON object");
    assertThatThrownBy(() -> SamzaCheckpointRecord.parse(null, utf8("{}")))
        .hasMessage("it has no key");
    assertThatThrownBy(() -> SamzaCheckpointRecord.parse(key("checkpoint", "Partition 0"),
        utf8("{\"x\":\"y\"}")))
        .hasMessage("its entry x is not an object");
    assertThatThrownBy(() -> SamzaCheckpointRecord.parse(key("checkpoint-v2", "Partition 0"),
        utf8("{\"input-offsets\":{\"page-views\":\"7\"}}")))
        .hasMessage("its entry page-views is not named system.stream.partition");
  }
}
