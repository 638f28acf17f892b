package io.millrace.samza.checkpoint;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One record of Samza 1.8's Kafka checkpoint topic, read from its bytes (learnt from Samza's
 * {@code KafkaCheckpointLogKeySerde}, {@code CheckpointV1Serde} and {@code CheckpointV2Serde}).
 *
 * <p>The key is a JSON object of three strings:
 * <pre>{"systemstreampartition-grouper-factory": "...GroupByPartitionFactory",
 *  "taskName": "Partition 0", "type": "checkpoint"}</pre>
 * {@code type} is {@code checkpoint} for a version 1 checkpoint, {@code checkpoint-v2} for a
 * version 2 one. A version 1 value maps each partition's {@code SystemStreamPartition} string to
 * its parts and its offset:
 * <pre>{"SystemStreamPartition [kafka, page-views, 0]":
 *    {"system": "kafka", "stream": "page-views", "partition": "0", "offset": "41"}}</pre>
 * (a store's changelog partition appears too, its "offset" Samza's state marker
 * {@code <checkpoint id>:<changelog offset>}, or null). A version 2 value, as Samza 1.8 writes
 * it (its object mapper's dashed names and partition keys; the comment in its
 * {@code CheckpointV2Serde} shows an older shape, also read), holds the input offsets alone:
 * <pre>{"checkpoint-id": "1795775709101-812964",
 *  "input-offsets": {"kafka.page-views.0": "41"},
 *  "state-checkpoint-markers": {...}}</pre>
 * An offset is the last message the task processed, as Samza's Kafka system writes it: the
 * Kafka offset in decimal.
 *
 * @param version 1 or 2
 * @param taskName Samza's task name
 * @param offsets the offsets as Samza wrote them, by Samza partition ({@code system},
 *     {@code stream}, partition); null offsets left out
 */
record SamzaCheckpointRecord(int version, String taskName, Map<SamzaPartition, String> offsets) {
  static final String V1 = "checkpoint";
  static final String V2 = "checkpoint-v2";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {};

  /** A partition as Samza's checkpoint names it. */
  record SamzaPartition(String system, String stream, int partition) {}

  /**
   * Reads a record.
   *
   * @return the record, or null if its key is of a type this reader skips (as Samza skips it)
   * @throws IllegalArgumentException saying what is wrong with the bytes
   */
  static SamzaCheckpointRecord parse(byte[] key, byte[] value) {
    if (key == null) {
      throw new IllegalArgumentException("it has no key");
    }
    Map<String, Object> k = json(key, "key");
    Object type = k.get("type");
    Object task = k.get("taskName");
    if (!(type instanceof String) || !(task instanceof String)) {
      throw new IllegalArgumentException("its key has no string 'type' and 'taskName': "
          + new String(key, java.nio.charset.StandardCharsets.UTF_8));
    }
    int version = switch ((String) type) {
      case V1 -> 1;
      case V2 -> 2;
      default -> 0;
    };
    if (version == 0) {
      return null;
    }
    if (value == null) {
      throw new IllegalArgumentException("it has no value");
    }
    Map<String, Object> v = json(value, "value");
    // Samza 1.8 writes version 2 with its object mapper's dashed names (input-offsets); the
    // serde's own documentation shows inputOffsets: both are read.
    Object inputs = version == 1 ? v : v.getOrDefault("input-offsets", v.get("inputOffsets"));
    if (!(inputs instanceof Map<?, ?> byName)) {
      throw new IllegalArgumentException("its version 2 value has no 'input-offsets' object: "
          + shortened(value));
    }
    Map<SamzaPartition, String> offsets = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : byName.entrySet()) {
      if (version == 2 && e.getValue() instanceof String offset) {
        // Samza 1.8's version 2: "system.stream.partition": "offset"
        String name = e.getKey().toString();
        int first = name.indexOf('.');
        int last = name.lastIndexOf('.');
        try {
          if (first <= 0 || last <= first + 1) {
            throw new NumberFormatException();
          }
          offsets.put(new SamzaPartition(name.substring(0, first),
              name.substring(first + 1, last), Integer.parseInt(name.substring(last + 1))),
              offset);
        } catch (NumberFormatException ex) {
          throw new IllegalArgumentException("its entry " + name
              + " is not named system.stream.partition");
        }
        continue;
      }
      if (!(e.getValue() instanceof Map<?, ?> ssp)) {
        throw new IllegalArgumentException("its entry " + e.getKey() + " is not an object");
      }
      String system = text(ssp, "system", e.getKey());
      String stream = text(ssp, "stream", e.getKey());
      String partition = text(ssp, "partition", e.getKey());
      Object offset = ssp.get("offset");
      if (offset == null) {
        continue; // a changelog's entry in a version 1 checkpoint
      }
      try {
        offsets.put(new SamzaPartition(system, stream, Integer.parseInt(partition)),
            offset.toString());
      } catch (NumberFormatException ex) {
        throw new IllegalArgumentException("its entry " + e.getKey() + " has partition '"
            + partition + "', not a number");
      }
    }
    return new SamzaCheckpointRecord(version, (String) task, offsets);
  }

  private static Map<String, Object> json(byte[] bytes, String what) {
    try {
      Map<String, Object> map = JSON.readValue(bytes, OBJECT);
      if (map == null) {
        throw new IllegalArgumentException("its " + what + " is JSON null");
      }
      return map;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("its " + what + " is not a JSON object ("
          + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      throw new IllegalArgumentException("its " + what + " cannot be read: " + e);
    }
  }

  /** The start of a value, for a message. */
  private static String shortened(byte[] bytes) {
    String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }

  private static String text(Map<?, ?> ssp, String field, Object entry) {
    Object v = ssp.get(field);
    if (v == null) {
      throw new IllegalArgumentException("its entry " + entry + " has no '" + field + "'");
    }
    return v.toString();
  }
}
