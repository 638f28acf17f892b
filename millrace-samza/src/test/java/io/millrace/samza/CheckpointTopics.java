package io.millrace.samza;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A job's checkpointed input offsets, as the tests read them from the checkpoint topics. */
final class CheckpointTopics {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CheckpointTopics() {}

  /**
   * Each input partition's offset in the newest version 1 checkpoint of its task in Samza's
   * {@code topic} (none yet: empty): the last message processed.
   */
  static Map<Integer, Long> samza(TestKafka kafka, String topic, String input) throws Exception {
    Map<Integer, Long> offsets = new TreeMap<>();
    if (!kafka.exists(topic)) {
      return offsets;
    }
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, 1)) {
      if (!"checkpoint".equals(JSON.readValue(r.key(), Map.class).get("type"))) {
        continue;
      }
      for (Object ssp : JSON.readValue(r.value(), Map.class).values()) {
        Map<?, ?> s = (Map<?, ?>) ssp;
        if (input.equals(s.get("stream")) && s.get("offset") != null) {
          offsets.put(Integer.parseInt((String) s.get("partition")),
              Long.parseLong((String) s.get("offset")));
        }
      }
    }
    return offsets;
  }

  /**
   * Each task's changelog position in the newest version 1 checkpoint of its task in Samza's
   * {@code topic}, by task name: {changelog partition, offset} (the offset of the state marker
   * {@code <checkpoint id>:<offset>}; -1 for {@code null}, an empty changelog).
   */
  static Map<String, long[]> samzaChangelogs(TestKafka kafka, String topic, String changelog)
      throws Exception {
    Map<String, long[]> positions = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, 1)) {
      Map<?, ?> key = JSON.readValue(r.key(), Map.class);
      if (!"checkpoint".equals(key.get("type"))) {
        continue;
      }
      for (Object ssp : JSON.readValue(r.value(), Map.class).values()) {
        Map<?, ?> s = (Map<?, ?>) ssp;
        if (changelog.equals(s.get("stream"))) {
          String marker = (String) s.get("offset");
          String offset = marker.substring(marker.lastIndexOf(':') + 1);
          positions.put((String) key.get("taskName"), new long[] {
              Integer.parseInt((String) s.get("partition")),
              offset.equals("null") ? -1 : Long.parseLong(offset)});
        }
      }
    }
    return positions;
  }

  /**
   * Each input partition's offset in Millrace's committed checkpoint of the job ({@code
   * __millrace-checkpoints-<job>}, the newest record of each task, read as a reader of committed
   * data: under exactly-once a crashed commit's record is not one): the last message processed.
   * Empty when the job has none yet.
   */
  static Map<Integer, Long> millrace(TestKafka kafka, String job, String input)
      throws Exception {
    String topic = "__millrace-checkpoints-" + job;
    Map<Integer, Long> offsets = new TreeMap<>();
    if (!kafka.exists(topic)) {
      return offsets;
    }
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, 1, true)) {
      // "millrace-checkpoint 1", then a line per partition: system TAB stream TAB partition TAB
      // offset (KafkaCheckpointStore's layout)
      for (String line : new String(r.value(), StandardCharsets.UTF_8).split("\n")) {
        String[] f = line.split("\t");
        if (f.length == 4 && f[1].equals(input)) {
          offsets.put(Integer.parseInt(f[2]), Long.parseLong(f[3]));
        }
      }
    }
    return offsets;
  }
}
