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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stateful Samza job under {@code job.coordinator=kafka}, crashing for real: {@link
 * CountPerKeyTask} (a count per key in a RocksDB store with a changelog) runs on Millrace in two
 * child JVMs, one consumer group, while its input keeps arriving; one of them is killed (SIGKILL)
 * at a random point once it holds tasks and the group has committed past the last kill, three
 * times, and started again, the group moving its tasks to the other process and back (the first
 * time the survivor takes them all before the restart; then the restart joins at once). Checked
 * against a plain model of the input, as a reader of committed data reads the outputs and the
 * changelog: under exactly-once (12 tasks, so Samza's changelog order, which the translation
 * keeps, puts task 10's stores in changelog partition 2 and task 2's in 4, and the group's
 * checkpoints must keep each task's changelog offsets with its own input) every input is counted
 * once, with the count the model gives it, and the changelog's counts are the model's; under
 * at-least-once (a Samza job's own guarantee; 4 tasks) every input is counted, none with a count
 * below the model's (no state lost), and the store's count of each key is the last one sent.
 */
class SamzaGroupCrashTest {
  @RegisterExtension static final TestKafka kafka = TestKafka.perClass();
  /** The output's partitions (its records say which input they count). */
  private static final int OUTPUT_PARTITIONS = 4;
  /** A partition's keys. */
  private static final int KEYS = 30;
  private static final int KILLS = 3;
  private static final String OUTPUT = "key-counts"; // CountPerKeyTask's, shared by the tests

  @BeforeAll
  static void createSharedTopics() throws Exception {
    kafka.createTopic(OUTPUT, OUTPUT_PARTITIONS);
  }

  /**
   * One test's job of {@code tasks} tasks (its input's partitions), named for its guarantee
   * ({@code exactly-once}: {@code group_crash_e}), with its input, changelog, and keys ({@code
   * <e|a><partition>-k<i>}) its own.
   */
  private record Run(String guarantee, int tasks) {
    boolean exactlyOnce() {
      return guarantee.equals("exactly-once");
    }

    String tag() {
      return guarantee.substring(0, 1);
    }

    String job() {
      return "group_crash_" + tag();
    }

    /** Millrace's job name ({@code <job.name>-<job.id>}): the group's id. */
    String group() {
      return job() + "-1";
    }

    String input() {
      return "group-crash-" + tag() + "-input";
    }

    String changelog() {
      return "group-crash-" + tag() + "-changelog";
    }

    /** Record i of partition p's key: each task's keys are its own. */
    String key(int partition, long i) {
      return tag() + partition + "-k" + (i % KEYS);
    }

    boolean owns(String key) {
      return key.matches(tag() + "\\d+-k\\d+");
    }
  }

  /** The group's committed offsets of the input: each partition's last message processed. */
  private static Map<Integer, Long> committed(Admin admin, Run run) throws Exception {
    return JobProcesses.committed(admin, run.group(), run.input());
  }

  /** The tasks (input partitions) the group has given the process of {@code pid}. */
  private static List<Integer> tasksOf(Admin admin, Run run, long pid) throws Exception {
    return JobProcesses.tasksOf(admin, run.group(), pid);
  }

  /** Waits until {@code name} holds tasks and the group has committed past {@code from}. */
  private static void awaitHoldingTasksPast(JobProcesses processes, Admin admin, Run run,
      String name, Map<Integer, Long> from) throws Exception {
    long pid = processes.pid(name);
    processes.await("the group committing past " + from + " with " + name + " holding tasks",
        () -> !tasksOf(admin, run, pid).isEmpty()
            && PartitionOffsets.movedPast(committed(admin, run), from, run.tasks()));
  }

  @Test
  void underExactlyOnceAGroupJobWhoseProcessIsKilledAgainAndAgainCountsEveryInputOnce(
      @TempDir Path dir) throws Exception {
    crashAgainAndAgain(new Run("exactly-once", 12), dir);
  }

  @Test
  void underAtLeastOnceAGroupJobWhoseProcessIsKilledAgainAndAgainMissesNoInput(
      @TempDir Path dir) throws Exception {
    crashAgainAndAgain(new Run("at-least-once", 4), dir);
  }

  private static void crashAgainAndAgain(Run run, Path dir) throws Exception {
    kafka.createTopic(run.input(), run.tasks());
    Map<String, String> config = CountPerKeyJob.inAGroup(
        CountPerKeyJob.named(kafka, dir, run.job(), run.input(), run.changelog()));
    config.put("task.processing.guarantee", run.guarantee());
    // A dead member is found out within 6 s: each kill costs the group a session timeout.
    config.put("job.coordinator.session.timeout.ms", "6000");
    config.put("stores.counts.write.batch.size", "20"); // changelog writes between commits too
    SplittableRandom random = new SplittableRandom(34);
    long[] written;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.servers()));
        // About 1,200 records a second in all, whatever the partitions.
        SteadyInput input = new SteadyInput(kafka.servers(), run.input(), run.tasks(),
            12 / run.tasks(), run::key);
        JobProcesses processes = new JobProcesses(run.job())) {
      for (String name : List.of("a", "b")) {
        Map<String, String> own = new HashMap<>(config);
        own.put("job.state.dir", dir.resolve(name).toString()); // a machine each
        processes.start(name, ChildJvms.jobFile(own, dir, name + ".properties"));
      }
      Map<Integer, Long> from = Map.of();
      for (int kill = 0; kill < KILLS; kill++) {
        String victim = kill % 2 == 0 ? "b" : "a";
        String survivor = kill % 2 == 0 ? "a" : "b";
        awaitHoldingTasksPast(processes, admin, run, victim, from);
        // The kill lands up to about 1.5 s (three commit intervals) later.
        long killAt = input.total() + random.nextInt(1_800);
        processes.await("the input reaching record " + killAt, () -> input.total() >= killAt);
        processes.kill(victim);
        from = committed(admin, run);
        if (kill == 0) {
          long survivorPid = processes.pid(survivor);
          processes.await(survivor + " taking every task",
              () -> tasksOf(admin, run, survivorPid).size() == run.tasks());
        }
        processes.start(victim);
      }
      awaitHoldingTasksPast(processes, admin, run, (KILLS - 1) % 2 == 0 ? "b" : "a", from);
      written = input.stop();
      long[] all = written;
      processes.await("the group committing the last input",
          () -> PartitionOffsets.reachedTheEnd(committed(admin, run), all));
      processes.stopAll();
    }
    // The killed processes' transactions (each commit is one under a group) stay open until
    // the broker aborts them (after their transaction.timeout.ms, 10 s): until then a reader of
    // committed data stops before them.
    Await.until(Await.DEADLINE, "no transaction open on the output and changelog",
        () -> PartitionOffsets.noOpenTransaction(kafka, OUTPUT, OUTPUT_PARTITIONS)
            && PartitionOffsets.noOpenTransaction(kafka, run.changelog(), run.tasks()));

    CountModel model = CountModel.of(kafka, run.input(), written);
    Map<String, String> keyOf = model.keyOf();
    Map<String, Integer> counts = model.counts();

    // The committed outputs, by the input they count, and each key's last count sent.
    Map<String, List<Counted>> byInput = new HashMap<>();
    Map<String, Integer> lastSent = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(OUTPUT, OUTPUT_PARTITIONS, true)) {
      Counted c = Counted.of(r);
      if (run.owns(c.key())) {
        byInput.computeIfAbsent(c.input(), k -> new ArrayList<>()).add(c);
        lastSent.merge(c.key(), c.count(), Math::max);
      }
    }
    Map<String, Integer> changelog = CountModel.changelog(kafka, run.changelog(), run.tasks());
    String logs = "of " + keyOf.size() + "; logs target/" + run.job() + "-*.log";

    List<String> wrong = new ArrayList<>();
    model.countAfter().forEach((at, count) -> {
      List<Counted> outputs = byInput.getOrDefault(at, List.of());
      if (outputs.isEmpty()) {
        wrong.add(at + " (" + keyOf.get(at) + ") not counted");
      } else if (outputs.stream().anyMatch(c -> !c.key().equals(keyOf.get(at)))) {
        wrong.add(at + " (" + keyOf.get(at) + ") counted under another key: " + outputs);
      } else if (run.exactlyOnce() && (outputs.size() != 1 || outputs.get(0).count() != count)) {
        wrong.add(at + " (" + keyOf.get(at) + ") counted as " + outputs
            + ", where the model has it once, count " + count);
      } else if (outputs.stream().anyMatch(c -> c.count() < count)) {
        // Counted again after a crash, an input's count can only be higher: a lower one lost
        // state.
        wrong.add(at + " (" + keyOf.get(at) + ") counted as " + outputs
            + ", below the model's count " + count);
      }
    });
    assertThat(byInput.keySet()).as("outputs of inputs there are (%s)", logs)
        .isSubsetOf(keyOf.keySet());
    if (run.exactlyOnce()) {
      assertThat(wrong).as("inputs counted wrong (%s)", logs).isEmpty();
      assertThat(changelog).as("the changelog's counts (%s)", logs).isEqualTo(counts);
    } else {
      assertThat(wrong).as("inputs not counted, or counted low (%s)", logs).isEmpty();
      assertThat(changelog.keySet()).as("the changelog's keys").isEqualTo(counts.keySet());
      counts.forEach((key, count) -> assertThat(changelog.get(key))
          .as("the changelog's count of %s (%s)", key, logs).isGreaterThanOrEqualTo(count));
      assertThat(changelog).as("the changelog's counts: the last sent (%s)", logs)
          .isEqualTo(lastSent);
    }
  }
}
