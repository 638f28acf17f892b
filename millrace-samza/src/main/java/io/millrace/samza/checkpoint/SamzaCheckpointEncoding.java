package io.millrace.samza.checkpoint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of the records Samza 1.8's Kafka checkpoint manager writes, for the way back to Samza:
 * the inverse of {@link SamzaCheckpointRecord}, learnt from Samza's {@code
 * KafkaCheckpointLogKeySerde}, {@code CheckpointV1Serde} and {@code CheckpointV2Serde} (never
 * copied; {@code SamzaRoundTripTest} checks them against the records Samza itself wrote).
 *
 * <p>A key is compact JSON with Samza's field order: <pre>
 * {"systemstreampartition-grouper-factory":"...GroupByPartitionFactory",
 *  "taskName":"Partition 3","type":"checkpoint"}</pre>
 * A version 1 value maps each partition's {@code SystemStreamPartition [system, stream, p]} to
 * its four fields, all strings (Samza's reader requires the four); a store's changelog partition
 * carries the state marker {@code <checkpoint id>:<changelog offset>} ({@code null} for an empty
 * changelog) that Samza's transactional restore reads. A version 2 value holds the checkpoint id,
 * the input offsets by {@code system.stream.partition}, the stores' markers under Samza's Kafka
 * changelog state backend (each a JSON text), and its version: <pre>
 * {"checkpoint-id":"1795813071500-425382","input-offsets":{"kafka.page-views.0":"7"},
 *  "state-checkpoint-markers":{"org.apache.samza.storage.KafkaChangelogStateBackendFactory":
 *    {"counts":"{\"version\":1,\"changelog-ssp\":{\"system\":\"kafka\",\"partition\":0,
 *      \"stream\":\"counts-changelog\",\"keyBucket\":-1},\"changelog-offset\":\"99\"}"}},
 *  "version":2}</pre>
 * The partition maps are hash maps, as Samza's are.
 */
final class SamzaCheckpointEncoding {
  /** Samza's default grouper, the only one whose task names are Millrace's ("Partition k"). */
  static final String GROUP_BY_PARTITION =
      "org.apache.samza.container.grouper.stream.GroupByPartitionFactory";
  /** The state backend a version 2 checkpoint keeps Kafka changelog markers under. */
  static final String KAFKA_STATE_BACKEND =
      "org.apache.samza.storage.KafkaChangelogStateBackendFactory";
  private static final ObjectMapper JSON = new ObjectMapper();

  private SamzaCheckpointEncoding() {}

  /** Samza's name for task {@code partition} under {@link #GROUP_BY_PARTITION}. */
  static String taskName(int partition) {
    return "Partition " + partition;
  }

  /** The key of a task's checkpoint record of {@code version} (1 or 2). */
  static byte[] key(int version, String taskName) {
    Map<String, String> key = new LinkedHashMap<>();
    key.put("systemstreampartition-grouper-factory", GROUP_BY_PARTITION);
    key.put("taskName", taskName);
    key.put("type", version == 1 ? SamzaCheckpointRecord.V1 : SamzaCheckpointRecord.V2);
    return bytes(key);
  }

  /**
   * A partition's offset as a checkpoint holds it.
   *
   * @param offset the last message processed (an input), or the changelog's state marker
   */
  record Entry(String system, String stream, int partition, String offset) {}

  /** The version 1 value of a task's checkpoint: its inputs' offsets and changelog markers. */
  static byte[] v1Value(List<Entry> inputs, List<Entry> changelogs) {
    Map<String, Map<String, String>> value = new HashMap<>();
    for (List<Entry> entries : List.of(inputs, changelogs)) {
      for (Entry e : entries) {
        Map<String, String> ssp = new HashMap<>();
        ssp.put("system", e.system());
        ssp.put("stream", e.stream());
        ssp.put("partition", Integer.toString(e.partition()));
        ssp.put("offset", e.offset());
        value.put("SystemStreamPartition [" + e.system() + ", " + e.stream() + ", "
            + e.partition() + "]", ssp);
      }
    }
    return bytes(value);
  }

  /**
   * The version 2 value of a task's checkpoint.
   *
   * @param markers each store's state marker, by store name
   */
  static byte[] v2Value(String checkpointId, List<Entry> inputs, Map<String, String> markers) {
    Map<String, String> offsets = new HashMap<>();
    for (Entry e : inputs) {
      offsets.put(e.system() + "." + e.stream() + "." + e.partition(), e.offset());
    }
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("checkpoint-id", checkpointId);
    value.put("input-offsets", offsets);
    value.put("state-checkpoint-markers",
        markers.isEmpty() ? Map.of() : Map.of(KAFKA_STATE_BACKEND, new HashMap<>(markers)));
    value.put("version", 2);
    return bytes(value);
  }

  /**
   * A checkpoint id as Samza makes one ({@code <epoch millis>-<a nanosecond count below a
   * million>}), which its transactional restore reads the checkpoint's age from.
   */
  static String checkpointId(long epochMillis, long nanoTime) {
    return epochMillis + "-" + Math.floorMod(nanoTime, 1_000_000L);
  }

  /** A store's changelog marker in a version 1 checkpoint: {@code <id>:<offset or null>}. */
  static String v1Marker(String checkpointId, Long changelogOffset) {
    return checkpointId + ":" + (changelogOffset == null ? "null" : changelogOffset.toString());
  }

  /**
   * A store's changelog marker in a version 2 checkpoint: JSON in a string, Samza's {@code
   * KafkaStateCheckpointMarker} (version 1) as its object mapper writes it; {@code keyBucket} -1
   * is a partition's whole.
   */
  static String v2Marker(String system, String topic, int partition, Long changelogOffset) {
    Map<String, Object> ssp = new LinkedHashMap<>();
    ssp.put("system", system);
    ssp.put("partition", partition);
    ssp.put("stream", topic);
    ssp.put("keyBucket", -1);
    Map<String, Object> marker = new LinkedHashMap<>();
    marker.put("version", 1);
    marker.put("changelog-ssp", ssp);
    marker.put("changelog-offset", changelogOffset == null ? null : changelogOffset.toString());
    return new String(bytes(marker), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static byte[] bytes(Object json) {
    try {
      return JSON.writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON of strings: " + e, e);
    }
  }
}
