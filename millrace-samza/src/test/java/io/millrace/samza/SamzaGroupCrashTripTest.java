package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.testing.Await;
import io.millrace.kafka.testing.SteadyInput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The way back to Samza after a crash under {@code job.coordinator=kafka}: a stateful Samza job
 * ({@link CountPerKeyTask}, a count per key in a RocksDB store with a changelog) of 12 tasks runs
 * on Millrace under exactly-once in two child JVMs, one consumer group, while its input keeps
 * arriving; one is killed (SIGKILL) at a random point with a transaction open that holds
 * changelog writes of its tasks (frozen by SIGSTOP while that is checked), the other takes its
 * tasks and commits past the kill, and is stopped cleanly (SIGTERM), the input still arriving.
 * Then {@code millrace samza export-checkpoint}, refused; the killed process started again, and
 * stopped cleanly once it has committed; the export again, and Samza 1.8's own runtime (a child
 * JVM) resumes and runs to the end of the input.
 *
 * <p>The killed process's transaction stays open, holding back readers of committed data of its
 * changelog partitions before the writes the survivor committed there after it, until its next
 * process (the same {@code job.instance.id}, so the same transactional id) fences it at start,
 * as any restart here does: its {@code transaction.timeout.ms} is longer than the test, so that
 * the export meets it open whatever the load, and nothing waits for the broker to abort it. The
 * export refuses while it is open (Samza would restore those partitions only up to it, losing
 * the survivor's counts), and writes once it is aborted. Checked: what
 * Samza reads is what Millrace committed (each task's checkpointed input offset the group's last
 * committed offset less one; each task's changelog position in the partition Samza gives it, the
 * rank of its name in text order, at that partition's end), and, against a plain model of the
 * input, a reader of committed data finds every input counted exactly once in the outputs with
 * the count the model gives it, by Millrace up to the exported offsets and by Samza after, and
 * the changelog's counts are the model's.
 */
class SamzaGroupCrashTripTest {
  private static final int TASKS = 12;
  /** A partition's keys: more than the store's write batch, so it flushes between commits. */
  private static final int KEYS = 30;
  private static final String JOB = "group_crash_trip";
  private static final String GROUP = JOB + "-1"; // <job.name>-<job.id>
  private static final String INPUT = "group-crash-trip-input";
  private static final String CHANGELOG = "group-crash-trip-changelog";
  private static final String OUTPUT = "key-counts"; // CountPerKeyTask's
  private static final int OUTPUT_PARTITIONS = 4;
  private static final String SAMZA_CHECKPOINTS =
      "__samza_checkpoint_ver_1_for_group-crash-trip_1";
  /**
   * The transactions' time-out: longer than the test, so that only b's next process ends the
   * transaction b was killed with (the broker's maximum is 15 minutes).
   */
  private static final int TRANSACTION_TIMEOUT_MS = 600_000;
  /** b's {@code job.instance.id}: its transactional id is the same in its next process. */
  private static final String B = "process-b";
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

  /** Record i of partition p's key: each task's keys are its own. */
  private static String key(int partition, long i) {
    return "g" + partition + "-k" + (i % KEYS);
  }

  /** The changelog partition Samza gives task {@code Partition t}: its name's rank. */
  private static int changelogPartition(int task) {
    TreeSet<String> names = new TreeSet<>();
    for (int t = 0; t < TASKS; t++) {
      names.add("Partition " + t);
    }
    return names.headSet("Partition " + task).size();
  }

  /** The changelog partitions a transaction is open on: their end past their stable end. */
  private static List<Integer> openChangelogPartitions() {
    return PartitionOffsets.openTransactions(kafka, CHANGELOG, TASKS);
  }

  @Test
  void aGroupJobWhoseProcessWasKilledGoesBackToSamzaWithWhatItCommittedAndEveryInputCountedOnce(
      @TempDir Path dir) throws Exception {
    kafka.createTopic(INPUT, TASKS);
    kafka.createTopic(OUTPUT, OUTPUT_PARTITIONS);
    Map<String, String> config = CountPerKeyJob.named(kafka, dir, JOB, INPUT, CHANGELOG);
    config.put("stores.counts.write.batch.size", "20"); // changelog writes between commits too
    // What the export asks of a job that wrote its changelogs in transactions here.
    config.put("systems.kafka.consumer.isolation.level", "read_committed");
    Path samzaFile = ChildJvms.jobFile(config, dir, "group-crash-trip.properties");
    Map<String, String> millrace = CountPerKeyJob.inAGroup(new HashMap<>(config));
    millrace.put("task.processing.guarantee", "exactly-once");
    // A dead member is found out within 6 s; its open transaction lives until its next process.
    millrace.put("job.coordinator.session.timeout.ms", "6000");
    millrace.put("systems.kafka.producer.transaction.timeout.ms",
        Integer.toString(TRANSACTION_TIMEOUT_MS));
    Path millraceFile = ChildJvms.jobFile(millrace, dir, "group-crash-trip-millrace.properties");
    SplittableRandom random = new SplittableRandom(34);
    long[] written;
    Map<Integer, Long> committed;
    Map<Integer, Long> exported;
    long[] changelogEnds;
    Map<String, long[]> exportedChangelogs;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.servers()));
        // About 1,200 records a second in all.
        SteadyInput input = new SteadyInput(kafka.servers(), INPUT, TASKS, 1,
            SamzaGroupCrashTripTest::key);
        JobProcesses processes = new JobProcesses(JOB)) {
      for (String name : List.of("a", "b")) {
        Map<String, String> own = new HashMap<>(millrace);
        own.put("job.state.dir", dir.resolve(name).toString()); // a machine each
        if (name.equals("b")) {
          own.put("job.instance.id", B);
        }
        processes.start(name, ChildJvms.jobFile(own, dir, name + ".properties"));
      }
      // 1. b is killed once it holds tasks, the group has committed, a random share of up to
      // 1,800 more records has arrived, and b's transaction holds changelog writes.
      processes.await("b holding tasks and the group committing every partition", () ->
          !JobProcesses.tasksOf(admin, GROUP, B).isEmpty()
              && PartitionOffsets.movedPast(JobProcesses.committed(admin, GROUP, INPUT),
                  Map.of(), TASKS));
      long killAt = input.total() + random.nextInt(1_800);
      List<Integer> bChangelogs = new ArrayList<>();
      processes.await("the input reaching record " + killAt + ", and b's transaction holding"
          + " changelog writes", () -> {
            if (input.total() < killAt) {
              return false;
            }
            // Frozen while checked, so that it cannot commit between the check and the kill.
            processes.freeze("b", true);
            bChangelogs.clear();
            JobProcesses.tasksOf(admin, GROUP, B)
                .forEach(t -> bChangelogs.add(changelogPartition(t)));
            List<Integer> open = openChangelogPartitions();
            open.retainAll(bChangelogs); // each partition's writer is its task's owner
            if (open.isEmpty()) {
              processes.freeze("b", false);
            }
            return !open.isEmpty();
          });
      processes.kill("b");
      Map<Integer, Long> atKill = JobProcesses.committed(admin, GROUP, INPUT);

      // 2. a takes b's tasks and commits past the kill; it is stopped, the input arriving still.
      long aPid = processes.pid("a");
      processes.await("a taking every task and the group committing past " + atKill, () ->
          JobProcesses.tasksOf(admin, GROUP, aPid).size() == TASKS
              && PartitionOffsets.movedPast(JobProcesses.committed(admin, GROUP, INPUT),
                  atKill, TASKS));
      processes.stopAll(); // commits what it processed
      Map<Integer, Long> committedByA = JobProcesses.committed(admin, GROUP, INPUT);
      List<Integer> open = openChangelogPartitions();
      assertThat(open).as("changelog partitions b's transaction still holds open (b's tasks'"
          + " partitions %s) until b's next process", bChangelogs).isNotEmpty();

      // 3. The export, while b's transaction is open: refused, nothing written.
      String[] refused = SamzaTestJobs.exportCheckpoint(millraceFile);
      assertThat(refused[0]).as("the export's exit (%s)", refused[2]).isEqualTo("1");
      assertThat(refused[1]).isEmpty();
      assertThat(refused[2]).startsWith("error: job " + GROUP + ": a Kafka transaction is open"
          + " on store counts's changelog kafka." + CHANGELOG + " partition(s) " + open + ", and"
          + " Samza would restore only up to it")
          .hasLineCount(1);
      assertThat(kafka.exists(SAMZA_CHECKPOINTS)).isFalse();

      // 4. b's next process fences its transaction at start (aborted); it takes every task,
      // commits past a, and is stopped, the input arriving still. The export then writes what
      // the group committed.
      processes.start("b");
      processes.await("b's next process taking every task and the group committing past "
          + committedByA, () -> JobProcesses.tasksOf(admin, GROUP, B).size() == TASKS
              && PartitionOffsets.movedPast(JobProcesses.committed(admin, GROUP, INPUT),
                  committedByA, TASKS));
      processes.stopAll();
      committed = JobProcesses.committed(admin, GROUP, INPUT);
      Await.until(Await.DEADLINE, ChildJvms.POLL, "no transaction open on the changelog",
          () -> openChangelogPartitions().isEmpty());
      String[] export = SamzaTestJobs.exportCheckpoint(millraceFile);
      assertThat(export[2]).isEmpty();
      assertThat(export[0]).isEqualTo("0");
      assertThat(export[1]).contains("wrote the checkpoints of " + TASKS + " task(s)");
      changelogEnds = kafka.endOffsets(CHANGELOG, TASKS, false);
      exported = CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT);
      exportedChangelogs = CheckpointTopics.samzaChangelogs(kafka, SAMZA_CHECKPOINTS, CHANGELOG);

      // 5. Samza resumes while the input still arrives, then runs to its end.
      String log = "group-crash-trip-samza.log";
      Process samza = ChildJvms.samza(samzaFile, log);
      try {
        Map<Integer, Long> from = exported;
        ChildJvms.awaitWhileAlive(samza, log, "Samza checkpointing past " + from,
            () -> PartitionOffsets.movedPast(
                CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT), from, TASKS));
        written = input.stop();
        long[] all = written;
        ChildJvms.awaitWhileAlive(samza, log, "Samza checkpointing the last input",
            () -> PartitionOffsets.reachedTheEnd(
                CheckpointTopics.samza(kafka, SAMZA_CHECKPOINTS, INPUT), all));
      } finally {
        ChildJvms.kill(samza); // after its checkpoint of everything: nothing to do again
      }
    }

    // What Samza read is what Millrace committed: each partition's last offset the group
    // committed, and each task's changelog position at the end of its partition in Samza's
    // order (task 10's in partition 2).
    assertThat(exported).isEqualTo(committed);
    Map<String, long[]> expected = new TreeMap<>();
    for (int t = 0; t < TASKS; t++) {
      int p = changelogPartition(t);
      expected.put("Partition " + t, new long[] {p, changelogEnds[p] - 1});
    }
    assertThat(exportedChangelogs).as("each task's changelog partition and position")
        .usingRecursiveComparison().isEqualTo(expected);

    // Nothing open any more (Samza's writes are not transactional; b's first transaction
    // aborted).
    Await.until(Await.DEADLINE, ChildJvms.POLL, "no transaction open on the output and changelog",
        () -> PartitionOffsets.noOpenTransaction(kafka, OUTPUT, OUTPUT_PARTITIONS)
            && PartitionOffsets.noOpenTransaction(kafka, CHANGELOG, TASKS));
    CountModel model = CountModel.of(kafka, INPUT, written);
    Map<String, String> keyOf = model.keyOf();
    Map<String, List<Counted>> byInput = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(OUTPUT, OUTPUT_PARTITIONS, true)) {
      Counted c = Counted.of(r);
      byInput.computeIfAbsent(c.input(), k -> new ArrayList<>()).add(c);
    }
    List<String> wrong = new ArrayList<>();
    model.countAfter().forEach((at, count) -> {
      List<Counted> outputs = byInput.getOrDefault(at, List.of());
      if (outputs.size() != 1) {
        wrong.add(at + " (" + keyOf.get(at) + ") counted " + outputs.size() + " times: "
            + outputs);
        return;
      }
      Counted c = outputs.get(0);
      String runtime = c.offset() <= exported.get(c.partition()) ? "millrace" : "samza";
      if (!c.key().equals(keyOf.get(at)) || c.count() != count || !c.runtime().equals(runtime)) {
        wrong.add(at + " (" + keyOf.get(at) + ") counted as " + c + ", where the model has count "
            + count + " by " + runtime);
      }
    });
    String logs = "of " + keyOf.size() + "; exported " + exported + "; logs target/" + JOB
        + "-*.log, target/group-crash-trip-samza.log";
    assertThat(wrong).as("inputs counted wrong (%s)", logs).isEmpty();
    assertThat(byInput.keySet()).as("outputs of inputs there are")
        .isEqualTo(model.countAfter().keySet());
    assertThat(CountModel.changelog(kafka, CHANGELOG, TASKS)).as("the changelog's counts (%s)",
        logs).isEqualTo(model.counts());
  }
}
