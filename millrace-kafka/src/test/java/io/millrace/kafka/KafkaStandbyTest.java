package io.millrace.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standby replicas ({@code job.standby.replicas}) and warm-ups with real processes (child JVMs,
 * killed for real) on the test broker: each stateful task's copy is kept by another process,
 * follows its changelog, and takes over from its local files when the active's process dies; a
 * process that joins warms up the tasks it will take before they move.
 */
class KafkaStandbyTest {
  static final int TASKS = 4;
  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  private static Map<String, String> withStandby(ScaleOutHarness h, String label) {
    Map<String, String> config = h.config(label);
    config.put("job.standby.replicas", "1");
    return config;
  }

  /** Waits until every task's checkpoint has moved 10 records past where it is now. */
  private static void awaitEveryTaskProgressing(ScaleOutHarness h) throws InterruptedException {
    long[] now = h.checkpointed();
    KafkaTestSupport.await(Duration.ofSeconds(60), "every task making progress", () -> {
      long[] done = h.checkpointed();
      for (int p = 0; p < now.length; p++) {
        if (done[p] < now[p] + 10) {
          return false;
        }
      }
      return true;
    });
  }

  /** The changelog offset a process's copy of a store says its files hold, or -1. */
  private static long marked(ScaleOutHarness h, String label, int task) {
    Path file = h.storeDir(label, "counts", task).resolve("CHANGELOG_OFFSET");
    try {
      return Files.exists(file) ? Long.parseLong(Files.readString(file).trim()) : -1;
    } catch (java.io.IOException | NumberFormatException e) {
      return -1; // being replaced: read again
    }
  }

  @Test
  void killNineOfAnActiveHandsItsTasksToTheirStandbysWhichReplayOnlyTheTail() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      h.start("a", withStandby(h, "a"));
      h.start("b", withStandby(h, "b"));
      h.awaitCounts("2 tasks each", 2, 2);
      h.feed();
      // Every task's copy is on the other process (never with its active), as both say.
      KafkaTestSupport.await(Duration.ofSeconds(60), "each process keeps the other's copies",
          () -> {
            Map<String, Set<Integer>> held = h.assignment();
            return held.size() == 2
                && h.standbys("a").keySet().equals(held.get("b"))
                && h.standbys("b").keySet().equals(held.get("a"));
          });
      Set<Integer> lost = h.assignment().get("b");
      // a's copies of b's tasks follow their changelogs: their files are marked close behind.
      h.feedNow(200);
      long[] ends = h.changelogEnds();
      KafkaTestSupport.await(Duration.ofSeconds(60), "a's copies caught up with " + lost, () ->
          lost.stream().allMatch(t -> marked(h, "a", t) >= ends[t] - 1));
      h.feedNow(50);

      long[] atKill = h.checkpointed();
      long[] changelogAtKill = h.changelogEnds();
      int logAtKill = h.log("a").length();
      h.kill("b"); // SIGKILL: no commit, no leave
      h.awaitCounts("b's tasks on a", 4);
      awaitEveryTaskProgressing(h);
      long[] sent = h.stopFeeding();
      h.awaitProcessed(sent);
      h.stop("a");

      // The takeover restored from a's standby files: nothing in full, and only a tail (or
      // nothing at all, when the copies held every committed write: no restore line then).
      String takeover = h.log("a").substring(logAtKill);
      assertThat(takeover).as("a took b's tasks").contains("assigned task(s)")
          // while its own two ran on: their stores restored on the state updater
          .contains("are prepared and restored on the state updater while its other 2 task(s) run");
      for (int t : lost) {
        // Its copy's engine went to the container open: RocksDB was not closed and reopened.
        assertThat(takeover).contains("standby copy of task " + t + " handed over open");
      }
      if (takeover.contains("restoring ")) {
        assertThat(takeover).contains("(0 in full, the rest from their local files)")
            .doesNotContainPattern("\\([1-9]\\d* in full");
        Matcher restored = Pattern.compile("restored \\d+ store partition\\(s\\) from system "
            + "'kafka': (\\d+) records").matcher(takeover);
        assertThat(restored.find()).as("the restore's summary in %s", takeover).isTrue();
        long whole = 0;
        for (int t : lost) {
          whole += changelogAtKill[t];
        }
        assertThat(Long.parseLong(restored.group(1))).as("records replayed of the %d the moved "
            + "tasks' changelogs held", whole).isLessThan(whole / 4);
      }

      // Counts equal a clean run's, or exceed it only by what b processed after its last
      // checkpoint, which a processed again.
      Map<String, Long> clean = new TreeMap<>();
      Map<String, Long> again = new HashMap<>();
      for (int p = 0; p < TASKS; p++) {
        for (long o = 0; o < sent[p]; o++) {
          String key = ScaleOutHarness.countOf(p, ScaleOutHarness.keyOf(p, o));
          clean.merge(key, 1L, Long::sum);
          if (lost.contains(p) && o > atKill[p]) {
            again.merge(key, 1L, Long::sum);
          }
        }
      }
      Map<String, Long> counts = h.counts();
      assertThat(counts.keySet()).isEqualTo(clean.keySet());
      clean.forEach((key, count) -> assertThat(counts.get(key)).as("count of %s", key)
          .isBetween(count, count + again.getOrDefault(key, 0L)));
    }
  }

  /** When a line of a child's log was written (its HH:mm:ss.SSS prefix), in ms of the day. */
  private static long timeOf(String line) {
    return java.time.LocalTime.parse(line.substring(0, 12)).toNanoOfDay() / 1_000_000;
  }

  @Test
  void aJoinerWarmsUpTheTasksItWillTakeWhileTheirOwnersKeepRunningThem() throws Exception {
    int tasks = 6;
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, tasks)) {
      java.util.function.Function<String, Map<String, String>> config = label -> {
        Map<String, String> c = h.config(label);
        c.put("job.acceptable.recovery.lag", "300"); // less than a task's changelog at the join
        return c;
      };
      h.start("a", config.apply("a"));
      h.start("b", config.apply("b"));
      h.awaitCounts("3 tasks each", 3, 3);
      h.feed();
      KafkaTestSupport.await(Duration.ofSeconds(90), "every changelog past 1,000 records", () ->
          java.util.Arrays.stream(h.changelogEnds()).allMatch(end -> end > 1_000));

      h.start("c", config.apply("c"));
      h.awaitCounts("2 tasks each", 2, 2, 2);
      Set<Integer> taken = h.assignment().get("c");
      awaitEveryTaskProgressing(h);
      long[] sent = h.stopFeeding();
      h.awaitProcessed(sent);
      long[] ends = h.changelogEnds();
      String joined = h.log("c"); // up to 2/2/2: the stops below move tasks again
      for (String label : List.of("a", "b", "c")) {
        h.stop(label);
      }

      // Each task c took was warmed up there first: its copy opened before the task came.
      List<String> log = joined.lines().toList();
      for (int t : taken) {
        String opened = log.stream().filter(l -> l.contains("standby copy of task " + t
            + " opened")).findFirst().orElseThrow(() -> new AssertionError("no warm-up of task "
            + t + " on c:\n" + String.join("\n", log)));
        String assigned = log.stream().filter(l -> l.contains("assigned task(s)")
            && l.matches(".*assigned task\\(s\\) \\[([0-9, ]*, )?" + t + "(, [0-9, ]*)?\\].*"))
            .findFirst().orElseThrow(() -> new AssertionError("task " + t + " never assigned on "
                + "c:\n" + String.join("\n", log)));
        assertThat(timeOf(opened)).as("task %d warmed up before it moved", t)
            .isLessThan(timeOf(assigned));
      }
      assertThat(String.join("\n", log)).as("c's restores: tails only")
          .doesNotContainPattern("\\([1-9]\\d* in full");
      // What c restored when the tasks came was a tail of what their changelogs held.
      long restored = 0;
      Matcher m = Pattern.compile("restored \\d+ store partition\\(s\\) from system 'kafka': "
          + "(\\d+) records").matcher(joined);
      while (m.find()) {
        restored += Long.parseLong(m.group(1));
      }
      long whole = 0;
      for (int t : taken) {
        whole += ends[t];
      }
      assertThat(restored).as("records c replayed of the %d its tasks' changelogs hold", whole)
          .isLessThan(whole / 4);
      // Clean moves: every input counted once.
      Map<String, Long> clean = new TreeMap<>();
      for (int p = 0; p < tasks; p++) {
        for (long o = 0; o < sent[p]; o++) {
          clean.merge(ScaleOutHarness.countOf(p, ScaleOutHarness.keyOf(p, o)), 1L, Long::sum);
        }
      }
      assertThat(h.counts()).isEqualTo(clean);
    }
  }
}
