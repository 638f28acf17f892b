package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.core.embed.RunningJob;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Samza jobs on a real Kafka broker: a typical job's properties, and Samza's partitioning. */
class SamzaKafkaTest {
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();
  @TempDir Path state;

  @Test
  void aTypicalSamzaJobsPropertiesRunAsTheyAreOnKafka() throws Exception {
    kafka.createTopic("wikipedia-edits", 2);
    List<Object[]> edits = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      edits.add(new Object[] {i % 2, "edit-" + i,
          "{\"title\":\"page-" + (i % 3) + "\",\"bytes\":" + (i + 1) + "}"});
    }
    kafka.write("wikipedia-edits", edits);
    Map<String, String> config = SamzaJobTranslatorTest.typicalJob();
    // What --set would give on the command line: this broker, and state in the test's folder.
    config.put("systems.kafka.producer.bootstrap.servers", kafka.servers());
    config.put("job.state.dir", state.toString());
    ObjectMapper json = new ObjectMapper();
    try (RunningJob job = SamzaTestJobs.start(config)) {
      List<ConsumerRecord<byte[], byte[]>> stats = kafka.read("wikipedia-stats", 2, records -> {
        int total = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
          try {
            total += ((Number) json.readValue(r.value(), Map.class).get("edits")).intValue();
          } catch (java.io.IOException e) {
            throw new AssertionError(e);
          }
        }
        return total == 10;
      });
      job.stop();
      int bytesAdded = 0;
      for (ConsumerRecord<byte[], byte[]> r : stats) {
        assertThat(new String(r.key(), StandardCharsets.UTF_8)).startsWith("window-");
        bytesAdded += ((Number) json.readValue(r.value(), Map.class).get("bytes-added")).intValue();
      }
      assertThat(bytesAdded).isEqualTo(55);
    }
    // The store's changelog holds Samza's bytes: string keys, integer values.
    List<ConsumerRecord<byte[], byte[]>> changelog = kafka.read("wikipedia-stats-changelog", 2,
        records -> records.stream().map(r -> new String(r.key(), StandardCharsets.UTF_8))
            .distinct().count() >= 3);
    assertThat(changelog).allSatisfy(r -> assertThat(r.value()).hasSize(4));
  }

  @Test
  void keyedOutputLandsInTheKafkaPartitionSamzaWouldChoose() throws Exception {
    String in = SamzaTestJobs.unique("keys");
    String out = SamzaTestJobs.unique("keyed");
    kafka.createTopic(in, 1);
    kafka.createTopic(out, 3);
    List<String> keys = List.of("polygenelubricants", "a", "b", "hello", "int:-7", "int:10");
    List<Object[]> records = new ArrayList<>();
    for (String key : keys) {
      records.add(new Object[] {0, key, key});
    }
    kafka.write(in, records);
    SamzaPartitioningTest.KeyedTask.output = out;
    Map<String, String> config =
        SamzaTestJobs.memoryJob(SamzaPartitioningTest.KeyedTask.class, in, state);
    // The task sends to system "mem": here a Kafka system of that name.
    config.put("systems.mem.samza.factory", "org.apache.samza.system.kafka.KafkaSystemFactory");
    config.put("systems.mem.producer.bootstrap.servers", kafka.servers());
    config.put("systems.mem.samza.key.serde", "string");
    config.put("systems.mem.samza.msg.serde", "string");
    config.put("task.outputs", "mem." + out);
    List<String> placed = new ArrayList<>();
    try (RunningJob job = SamzaTestJobs.start(config)) {
      for (ConsumerRecord<byte[], byte[]> r
          : kafka.read(out, 3, got -> got.size() == keys.size())) {
        placed.add(new String(r.value(), StandardCharsets.UTF_8) + "@" + r.partition() + " key "
            + new String(r.key(), StandardCharsets.UTF_8));
      }
      job.stop();
    }
    assertThat(placed).containsExactlyInAnyOrder(
        "polygenelubricants@0 key the key", "a@1 key the key", "b@2 key the key",
        "hello@1 key the key", "int:-7@1 key the key", "int:10@1 key the key");
  }
}
