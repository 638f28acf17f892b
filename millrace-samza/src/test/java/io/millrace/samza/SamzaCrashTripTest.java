package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.kafka.testing.SteadyInput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The way back to Samza after real crashes: a stateful Samza job ({@link CountPerKeyTask}, a
 * count per key in a RocksDB store with a changelog) runs on Millrace under exactly-once in a
 * child JVM while its input keeps arriving, and is killed (SIGKILL) at a random point of each
 * run, with a transaction open that holds changelog writes (the store flushes every 20 dirty
 * keys, so between commits too), and started again: four times or more. Then {@code millrace
 * samza export-checkpoint} runs, and the job resumes on Samza 1.8's own runtime (a child JVM)
 * and runs to the end of the input. The restarts must not count what the aborted transactions
 * counted, nor must Samza, which restores the store from a changelog that holds their writes and
 * ends in the last kill's (its file reads committed data, as the export asks; reading all, it
 * counted those inputs twice). Checked against a plain model of the input: a reader of
 * committed data finds every input counted exactly once in the outputs, each with the count the
 * model gives it, by Millrace up to the exported offsets and by Samza after; and the changelog's
 * counts are the model's.
 */
class SamzaCrashTripTest {
  private static final int PARTITIONS = 4;
  /** A partition's keys: more than the store's write batch, so it flushes between commits. */
  private static final int KEYS = 60;
  private static final int KILLS = 4;
  private static final String JOB = "crash_trip";
  private static final String MILLRACE_JOB = JOB + "-1"; // <job.name>-<job.id>
  private static final String INPUT = "crash-trip-input";
  private static final String CHANGELOG = "crash-trip-changelog";
  private static final String OUTPUT = "key-counts"; // CountPerKeyTask's
  private static final String SAMZA_CHECKPOINTS = "__samza_checkpoint_ver_1_for_crash-trip_1";
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

  /** The job's file, as it runs on Samza: the migration test's job with its own names. */
  private static Map<String, String> job(Path dir) throws Exception {
    Map<String, String> config = CountPerKeyJob.named(kafka, dir, JOB, INPUT, CHANGELOG);
    config.put("stores.counts.write.batch.size", "20");
    // What the export asks of a job that wrote its changelogs in transactions on Millrace.
    config.put("systems.kafka.consumer.isolation.level", "read_committed");
    return config;
  }

  /** Record i of partition p's key: each task's keys are its own. */
  private static String key(int partition, long i) {
    return "c" + partition + "-k" + (i % KEYS);
  }

  /** Whether a transaction is open with records in the changelog (its end past its stable end). */
  private static boolean changelogWritesOpen() {
    return !PartitionOffsets.noOpenTransaction(kafka, CHANGELOG, PARTITIONS);
  }

  /**
   * Whether a changelog partition's last record is one a reader of committed data does not see:
   * a write of a transaction that was aborted (once no transaction is open: after the export).
   */
  private static boolean changelogEndsInAbortedWrites() throws Exception {
    long[] last = new long[PARTITIONS];
    long[] lastCommitted = new long[PARTITIONS];
    kafka.readAll(CHANGELOG, PARTITIONS, false).forEach(r -> last[r.partition()] = r.offset());
    kafka.readAll(CHANGELOG, PARTITIONS, true)
        .forEach(r -> lastCommitted[r.partition()] = r.offset());
    return !Arrays.equals(last, lastCommitted);
  }

  @Test
  void aJobKilledMidStreamUnderExactlyOnceGoesBackToSamzaWithEveryInputCountedOnce(
      @TempDir Path dir) throws Exception {
    kafka.createTopic(INPUT, PARTITIONS);
    kafka.createTopic(OUTPUT, PARTITIONS);
    Map<String, String> config = job(dir);
    Path samzaFile = ChildJvms.jobFile(config, dir, "crash-trip.properties");
    Map<String, String> millraceKeys = new HashMap<>(config);
    millraceKeys.put("task.processing.guarantee", "exactly-once");
    Path millraceFile = ChildJvms.jobFile(millraceKeys, dir, "crash-trip-millrace.properties");
    SplittableRandom random = new SplittableRandom(34);
    long[] written;
    Map<Integer, Long> exported;
    // About 1,200 records a second in all: a kill lands up to about 2 s (four commit intervals,
    // task.commit.ms=500) after the run's first commit past the last run's.
    try (SteadyInput input = new SteadyInput(kafka.servers(), INPUT, PARTITIONS, 3,
        SamzaCrashTripTest::key)) {
      // 1. Millrace, killed at least four times: each run once it has committed past the last
      // run's checkpoint, a random share of up to 2,400 more records has arrived, and a
      // transaction holds changelog writes (Millrace restarts after each kill but the last). 2.
      // The export, after the fourth kill and any later: until a kill left the changelogs
      // ending in aborted writes, which Samza must not restore (they count inputs it processes).
      Map<Integer, Long> committed = Map.of();
      String[] export;
      for (int run = 0; ; run++) {
        String log = "crash-trip-millrace-" + run + ".log";
        Process millrace = ChildJvms.millrace(millraceFile, log);
        try {
          Map<Integer, Long> from = committed;
          ChildJvms.awaitWhileAlive(millrace, log, "Millrace's run " + run
              + " committing past " + from,
              () -> PartitionOffsets.movedPast(
                  CheckpointTopics.millrace(kafka, MILLRACE_JOB, INPUT), from, PARTITIONS));
          long killAt = input.total() + random.nextInt(2_400);
          ChildJvms.awaitWhileAlive(millrace, log, "the input reaching record " + killAt
              + ", and a transaction holding changelog writes",
              () -> input.total() >= killAt && changelogWritesOpen());
        } finally {
          ChildJvms.kill(millrace);
        }
        committed = CheckpointTopics.millrace(kafka, MILLRACE_JOB, INPUT);
        if (run + 1 < KILLS) {
          continue;
        }
        export = SamzaTestJobs.exportCheckpoint(millraceFile); // fences the dead transaction
        assertThat(export[2]).isEmpty();
        assertThat(export[0]).isEqualTo("0");
        if (changelogEndsInAbortedWrites()) {
          break;
        }
        // (the kill came as the transaction committed: again)
        assertThat(run).as("runs killed before one left aborted changelog writes")
            .isLessThan(KILLS + 10);
      }
      assertThat(export[1]).contains("wrote the checkpoints of " + PARTITIONS + " task(s)");
      exported = CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT);
      // (read after the export's fence: a kill during a commit may have committed it since)
      assertThat(exported).isEqualTo(CheckpointTopics.millrace(kafka, MILLRACE_JOB, INPUT));

      // 3. Samza resumes while the input still arrives, then runs to its end.
      String log = "crash-trip-samza.log";
      Process samza = ChildJvms.samza(samzaFile, log);
      try {
        ChildJvms.awaitWhileAlive(samza, log, "Samza checkpointing past " + exported,
            () -> PartitionOffsets.movedPast(
                CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT), exported, PARTITIONS));
        written = input.stop();
        long[] all = written;
        ChildJvms.awaitWhileAlive(samza, log, "Samza checkpointing the last input",
            () -> PartitionOffsets.reachedTheEnd(
                CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT), all));
      } finally {
        ChildJvms.kill(samza); // after its checkpoint of everything: nothing to do again
      }
    }

    // The plain model: each input's key and the key's count after it, from the input as written.
    CountModel model = CountModel.of(kafka, INPUT, written);
    Map<String, String> keyOf = model.keyOf();
    Map<String, Integer> countAfter = model.countAfter();

    // Every input counted once in the committed outputs, with the model's count, by Millrace up
    // to the exported offsets and by Samza after them.
    Map<String, List<Counted>> byInput = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(OUTPUT, PARTITIONS, true)) {
      Counted c = Counted.of(r);
      byInput.computeIfAbsent(c.input(), k -> new ArrayList<>()).add(c);
    }
    List<String> wrong = new ArrayList<>();
    countAfter.forEach((at, count) -> {
      List<Counted> outputs = byInput.getOrDefault(at, List.of());
      if (outputs.size() != 1) {
        wrong.add(at + " counted " + outputs.size() + " times: " + outputs);
        return;
      }
      Counted c = outputs.get(0);
      String runtime = c.offset() <= exported.get(c.partition()) ? "millrace" : "samza";
      if (!c.key().equals(keyOf.get(at)) || c.count() != count || !c.runtime().equals(runtime)) {
        wrong.add(at + " (" + keyOf.get(at) + ") counted as " + c + ", where the model has count "
            + count + " by " + runtime);
      }
    });
    assertThat(wrong).as("inputs counted wrong (of %s; exported %s; logs target/crash-trip-*.log)",
        keyOf.size(), exported).isEmpty();
    assertThat(byInput.keySet()).as("outputs of inputs there are").isEqualTo(countAfter.keySet());

    // The store's counts, as its changelog holds them for a reader of committed data, are the
    // model's.
    assertThat(CountModel.changelog(kafka, CHANGELOG, PARTITIONS)).isEqualTo(model.counts());
  }
}
