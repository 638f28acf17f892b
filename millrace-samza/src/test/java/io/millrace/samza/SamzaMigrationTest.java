package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.embed.RunningJob;
import io.millrace.core.testing.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Moving a running Samza job to Millrace, for real: a stateful job ({@link CountPerKeyTask}, a
 * count per key in a RocksDB store with a changelog, Kafka checkpoints) runs on Samza 1.8's own
 * runtime in a child JVM against the test broker, is killed mid-stream, and is started on
 * Millrace with the same properties. Checked against a plain model of the input: every message is
 * counted (nothing missing in the store or the output), a message is counted twice only if it
 * came after Samza's last checkpoint (at-least-once), Millrace resumed each partition right after
 * Samza's checkpointed offset, and once it has committed it keeps its own checkpoints.
 */
class SamzaMigrationTest {
  private static final int PARTITIONS = 3;
  private static final int KEYS = 20;
  private static final String INPUT = "keyed-input";
  private static final String OUTPUT = "key-counts";
  private static final String CHANGELOG = "counts-changelog";
  private static final String SAMZA_CHECKPOINTS = "__samza_checkpoint_ver_1_for_count-per-key_1";
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

  /** Messages {partition, key, value}: key k(i % KEYS) on partition i % PARTITIONS. */
  private static List<Object[]> messages(int from, int count) {
    List<Object[]> messages = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      messages.add(new Object[] {i % PARTITIONS, "k" + (i % KEYS), "m" + i});
    }
    return messages;
  }

  private static List<Counted> outputs() throws Exception {
    List<Counted> all = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(OUTPUT, PARTITIONS)) {
      all.add(Counted.of(r));
    }
    return all;
  }

  private static long countOutputs() throws Exception {
    return kafka.readAll(OUTPUT, PARTITIONS).size();
  }

  /** Samza's last checkpointed offset of each input partition. */
  private static Map<Integer, Long> samzaCheckpoints() throws Exception {
    return CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT);
  }

  /** The store's final counts, per partition and key, as its changelog holds them. */
  private static Map<String, Integer> changelogCounts() throws Exception {
    Map<String, Integer> counts = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(CHANGELOG, PARTITIONS)) {
      String key = r.partition() + "/" + new String(r.key(), StandardCharsets.UTF_8);
      if (r.value() == null) {
        counts.remove(key);
      } else {
        counts.put(key, ByteBuffer.wrap(r.value()).getInt()); // Samza's IntegerSerde
      }
    }
    return counts;
  }

  private static Process startSamza(Map<String, String> config, Path dir) throws IOException {
    return ChildJvms.samza(ChildJvms.jobFile(config, dir, "samza-job.properties"),
        "samza-child.log");
  }

  @Test
  void aStatefulSamzaJobKilledMidStreamResumesOnMillraceWithItsOffsetsAndState(
      @TempDir Path dir) throws Exception {
    kafka.createTopic(INPUT, PARTITIONS);
    kafka.createTopic(OUTPUT, PARTITIONS);
    Map<String, String> config = CountPerKeyJob.on(kafka, dir);
    int first = 3_000;
    int second = 60_000; // more than Samza gets through before it is killed
    kafka.write(INPUT, messages(0, first));

    Process samza = startSamza(config, dir);
    try {
      // Samza has processed the first messages and checkpointed: more arrive while it runs.
      ChildJvms.awaitWhileAlive(samza, "samza-child.log", "Samza's first checkpoints and outputs",
          () -> samzaCheckpoints().size() == PARTITIONS && countOutputs() >= first);
      kafka.write(INPUT, messages(first, second));
      // Killed once Samza has checkpointed into the second messages, and counted past that.
      long firstEnd = first / PARTITIONS - 1;
      Await.until(Await.DEADLINE, "Samza checkpointing the second messages",
          () -> samzaCheckpoints().values().stream().anyMatch(offset -> offset > firstEnd));
    } finally {
      ChildJvms.kill(samza); // SIGKILL: no final commit, no clean close
    }
    Map<Integer, Long> samzaCheckpoint = samzaCheckpoints();
    int total = first + second;

    // The plain model: each (partition, key)'s messages and their offsets.
    Map<String, List<Long>> model = new TreeMap<>();
    List<Object[]> all = messages(0, total);
    Map<Integer, Long> next = new HashMap<>();
    for (Object[] m : all) {
      int partition = (Integer) m[0];
      long offset = next.merge(partition, 1L, Long::sum) - 1;
      model.computeIfAbsent(partition + "/" + m[1], k -> new ArrayList<>()).add(offset);
    }
    long lastOffset = (total / PARTITIONS) - 1;
    assertThat(samzaCheckpoint.values()).as("Samza was stopped mid-stream")
        .anyMatch(offset -> offset < lastOffset);

    List<Counted> millraceRun;
    try (RunningJob job = SamzaTestJobs.start(new HashMap<>(config))) {
      Await.until(Await.DEADLINE, "every message counted", () -> {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Counted c : outputs()) {
          seen.add(c.partition() + "@" + c.offset());
        }
        return seen.size() == total;
      });
      job.stop();
    }
    millraceRun = outputs();
    Map<String, Integer> counts = changelogCounts();

    // Millrace resumed each partition right after Samza's checkpointed offset.
    Map<Integer, Long> firstByMillrace = new TreeMap<>();
    for (Counted c : millraceRun) {
      if (c.runtime().equals("millrace")) {
        firstByMillrace.merge(c.partition(), c.offset(), Math::min);
      }
    }
    Map<Integer, Long> afterCheckpoint = new TreeMap<>();
    samzaCheckpoint.forEach((p, offset) -> {
      if (offset < lastOffset) { // (a partition Samza finished has nothing left to process)
        afterCheckpoint.put(p, offset + 1);
      }
    });
    assertThat(firstByMillrace).isEqualTo(afterCheckpoint);
    // Every message counted in the store; twice only if it came after Samza's checkpoint.
    // The store's count is the last one sent: Millrace's, or Samza's where Samza finished.
    Map<String, Integer> lastMillraceCount = new HashMap<>();
    Map<String, Integer> lastSamzaCount = new HashMap<>();
    for (Counted c : millraceRun) {
      (c.runtime().equals("millrace") ? lastMillraceCount : lastSamzaCount)
          .merge(c.partition() + "/" + c.key(), c.count(), Math::max);
    }
    model.forEach((key, offsets) -> {
      int partition = Integer.parseInt(key.substring(0, key.indexOf('/')));
      long replayable = offsets.stream().filter(o -> o > samzaCheckpoint.get(partition)).count();
      assertThat(counts.get(key)).as("the count of %s", key)
          .isBetween(offsets.size(), (int) (offsets.size() + replayable));
      assertThat(lastMillraceCount.getOrDefault(key, lastSamzaCount.get(key)))
          .as("the last count sent for %s", key).isEqualTo(counts.get(key));
    });

    // Millrace keeps its own checkpoints now: a restart reads nothing again.
    int third = 30;
    kafka.write(INPUT, messages(total, third));
    try (RunningJob job = SamzaTestJobs.start(new HashMap<>(config))) {
      Await.until(Await.DEADLINE, "the newest messages counted",
          () -> countOutputs() >= millraceRun.size() + third);
      job.stop();
    }
    assertThat(outputs()).hasSize(millraceRun.size() + third);
  }

  @Test
  void aSamzaCheckpointRecordMillraceCannotReadStopsTheJobNamingItAndCommitsNothing(
      @TempDir Path dir) throws Exception {
    String topic = "__samza_checkpoint_ver_1_for_unreadable-job_1";
    kafka.createTopic(topic, 1);
    String goodKey = "{\"systemstreampartition-grouper-factory\":\"org.apache.samza.container"
        + ".grouper.stream.GroupByPartitionFactory\",\"taskName\":\"Partition 0\","
        + "\"type\":\"checkpoint\"}";
    kafka.write(topic, List.of(
        new Object[] {0, goodKey, "{\"SystemStreamPartition [kafka, unreadable-input, 0]\":{"
            + "\"system\":\"kafka\",\"stream\":\"unreadable-input\",\"partition\":\"0\","
            + "\"offset\":\"3\"}}"},
        new Object[] {0, goodKey, "{\"SystemStreamPartition [kafka, unreadable-input, 0]\":"}));
    kafka.createTopic("unreadable-input", 1);
    List<Object[]> one = new ArrayList<>();
    one.add(new Object[] {0, "k", "m"});
    kafka.write("unreadable-input", one);
    Map<String, String> config = CountPerKeyJob.on(kafka, dir);
    config.put("job.name", "unreadable_job");
    config.put("task.inputs", "kafka.unreadable-input");
    config.put("stores.counts.changelog", "kafka.unreadable-changelog");
    config.remove("streams.key-counts.samza.system");
    config.put("streams.unreadable-counts.samza.system", "kafka");

    assertThatThrownBy(() -> SamzaTestJobs.start(config))
        .hasMessageContaining("Samza checkpoint record at topic " + topic
            + " partition 0 offset 1 cannot be read: its value is not a JSON object")
        .hasMessageContaining("Nothing was committed")
        .message().doesNotContain("\n");
    // Nothing read, nothing sent, no checkpoint of Millrace's own.
    assertThat(!kafka.exists("unreadable-counts") || kafka.readAll("unreadable-counts", 1)
        .isEmpty()).isTrue();
    String own = "__millrace-checkpoints-unreadable_job-1";
    assertThat(!kafka.exists(own) || kafka.readAll(own, 1).isEmpty()).isTrue();
  }
}
