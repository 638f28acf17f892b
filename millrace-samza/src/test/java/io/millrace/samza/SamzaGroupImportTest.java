package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.embed.RunningJob;
import io.millrace.core.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Samza job moved over under {@code job.coordinator=kafka}, where the consumer group keeps the
 * checkpoints: on the broker the test starts, with Samza's checkpoint topic as Samza 1.8 writes
 * it, the job resumes each input partition right after Samza's checkpointed offset; once the group
 * has committed, a restart resumes from the group's checkpoint and does not read Samza's again.
 */
class SamzaGroupImportTest {
  private static final int PARTITIONS = 3;
  private static final int PER_PARTITION = 30;
  private static final String INPUT = "group-input";
  private static final String OUTPUT = "key-counts"; // CountPerKeyTask's
  private static final String SAMZA_CHECKPOINTS = "__samza_checkpoint_ver_1_for_group-job_1";
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

  /** The migration test's job file, renamed, on this broker, shared by a Kafka group. */
  private static Map<String, String> job(Path dir) throws Exception {
    return CountPerKeyJob.inAGroup(
        CountPerKeyJob.named(kafka, dir, "group_job", INPUT, "group-changelog"));
  }

  /** One Samza 1.8 checkpoint record of task {@code Partition p}: its input's offset. */
  private static Object[] samzaCheckpoint(int partition, long offset) {
    String key = "{\"systemstreampartition-grouper-factory\":\"org.apache.samza.container"
        + ".grouper.stream.GroupByPartitionFactory\",\"taskName\":\"Partition " + partition
        + "\",\"type\":\"checkpoint\"}";
    String value = "{\"SystemStreamPartition [kafka, " + INPUT + ", " + partition + "]\":{"
        + "\"system\":\"kafka\",\"stream\":\"" + INPUT + "\",\"partition\":\"" + partition
        + "\",\"offset\":\"" + offset + "\"}}";
    return new Object[] {0, key, value};
  }

  private static List<Object[]> messages(int round) {
    List<Object[]> messages = new ArrayList<>();
    for (int i = 0; i < PER_PARTITION * PARTITIONS; i++) {
      messages.add(new Object[] {i % PARTITIONS, "k" + (i % 7), "m" + round + "-" + i});
    }
    return messages;
  }

  /**
   * The offsets counted per input partition, from the output's {@code partition,offset,...},
   * once at least {@code atLeast} are there. Read committed: under {@code job.coordinator=kafka}
   * the job writes its outputs in the transactions that commit its offsets to the group (so the
   * partitions end in commit markers, which a read to the end offsets would wait for).
   */
  private static Map<Integer, List<Long>> counted(int atLeast) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.servers());
    p.put("isolation.level", "read_committed");
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        all.add(new TopicPartition(OUTPUT, i));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      Await.until(Await.DEADLINE, atLeast + " records of " + OUTPUT, () -> {
        consumer.poll(Duration.ofMillis(100)).forEach(read::add);
        return read.size() >= atLeast;
      });
      consumer.poll(Duration.ofMillis(200)).forEach(read::add); // any more: duplicates
    }
    Map<Integer, List<Long>> offsets = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : read) {
      String[] f = new String(r.value(), StandardCharsets.UTF_8).split(",");
      offsets.computeIfAbsent(Integer.parseInt(f[0]), k -> new ArrayList<>())
          .add(Long.parseLong(f[1]));
    }
    return offsets;
  }

  @Test
  void underAKafkaGroupAMovedJobResumesAfterSamzasCheckpointsThenKeepsTheGroups(
      @TempDir Path dir) throws Exception {
    kafka.createTopic(INPUT, PARTITIONS);
    kafka.createTopic(OUTPUT, PARTITIONS);
    kafka.createTopic(SAMZA_CHECKPOINTS, 1);
    kafka.write(INPUT, messages(1));
    long[] samza = {9, 19, 4}; // the last offset Samza processed, per partition
    List<Object[]> checkpoints = new ArrayList<>();
    checkpoints.add(samzaCheckpoint(0, 2)); // older records of the same tasks: not the newest
    checkpoints.add(samzaCheckpoint(1, 3));
    for (int p = 0; p < PARTITIONS; p++) {
      checkpoints.add(samzaCheckpoint(p, samza[p]));
    }
    kafka.write(SAMZA_CHECKPOINTS, checkpoints);
    Map<String, String> config = job(dir);

    int expected = 0;
    for (long offset : samza) {
      expected += PER_PARTITION - (int) (offset + 1);
    }
    int firstRun = expected;
    try (RunningJob job = SamzaTestJobs.start(new HashMap<>(config))) {
      counted(firstRun); // the messages after Samza's checkpoints, counted and committed
      job.stop(); // commits: the group has checkpoints of its own now
    }
    Map<Integer, List<Long>> first = counted(firstRun);
    for (int p = 0; p < PARTITIONS; p++) {
      List<Long> after = new ArrayList<>();
      for (long o = samza[p] + 1; o < PER_PARTITION; o++) {
        after.add(o);
      }
      assertThat(first.get(p)).as("partition %d, after Samza's offset %d", p, samza[p])
          .containsExactlyInAnyOrderElementsOf(after);
    }

    // Samza's topic says otherwise, but the group's own checkpoints win from now on.
    kafka.write(SAMZA_CHECKPOINTS, List.of(samzaCheckpoint(0, 0), samzaCheckpoint(1, 0),
        samzaCheckpoint(2, 0)));
    kafka.write(INPUT, messages(2));
    int secondRun = firstRun + PER_PARTITION * PARTITIONS;
    try (RunningJob job = SamzaTestJobs.start(new HashMap<>(config))) {
      counted(secondRun);
      job.stop();
    }
    Map<Integer, List<Long>> second = counted(secondRun);
    for (int p = 0; p < PARTITIONS; p++) {
      List<Long> more = new ArrayList<>(first.get(p));
      for (long o = PER_PARTITION; o < 2 * PER_PARTITION; o++) {
        more.add(o);
      }
      assertThat(second.get(p)).as("partition %d after the restart", p)
          .containsExactlyInAnyOrderElementsOf(more);
    }
  }
}
