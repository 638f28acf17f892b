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
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * One job run by several real processes (child JVMs, killed for real) against the test broker,
 * under {@code job.coordinator=kafka}: 12 tasks counting per key in RocksDB with a Kafka changelog
 * and echoing every input, fed all along.
 */
class KafkaScaleOutTest {
  static final int TASKS = 12;
  /** Kept when a test fails: the processes' logs are in it (a directory per process). */
  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  /** Each key's count in each task over every record sent: what one clean process counts. */
  private static Map<String, Long> cleanCounts(long[] sent) {
    Map<String, Long> counts = new TreeMap<>();
    for (int p = 0; p < sent.length; p++) {
      for (long o = 0; o < sent[p]; o++) {
        counts.merge(ScaleOutHarness.countOf(p, ScaleOutHarness.keyOf(p, o)), 1L, Long::sum);
      }
    }
    return counts;
  }

  private static void assertEveryInputInTheOutput(ScaleOutHarness h, long[] sent) {
    Set<String> values = new TreeSet<>();
    for (ConsumerRecord<String, String> r : h.output()) {
      values.add(r.value());
    }
    for (int p = 0; p < sent.length; p++) {
      for (long o = 0; o < sent[p]; o++) {
        assertThat(values).as("output holds input p%d offset %d", p, o).contains("p" + p + "-" + o);
      }
    }
  }

  /** Processes a, b and c hold 4 tasks each, and every task is making progress on the feed. */
  private static void threeProcessesRunning(ScaleOutHarness h) throws Exception {
    h.start("a");
    h.start("b");
    h.start("c");
    h.awaitCounts("4 tasks each", 4, 4, 4);
    h.feed();
    h.awaitProgress(new long[TASKS], 20);
  }

  @Test
  void killNineOfOneOfThreeMovesItsTasksToTheOthersAndLosesNothing() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      threeProcessesRunning(h);
      Set<Integer> lost = h.assignment().get("b");

      h.kill("b"); // SIGKILL: no commit, no leave; found out by its session timeout
      long[] atKill = h.checkpointed();
      h.awaitCounts("the dead process's tasks on the other two", 6, 6);
      h.awaitProgress(h.checkpointed(), 20);
      long[] sent = h.stopFeeding();
      h.awaitProcessed(sent);
      h.stop("a");
      h.stop("c");

      assertEveryInputInTheOutput(h, sent);
      // Counts equal a clean run's, or exceed it only by records of the killed process's tasks
      // after its last checkpoint, which their new owners processed again.
      Map<String, Long> clean = cleanCounts(sent);
      Map<String, Long> again = new HashMap<>();
      for (int p : lost) {
        for (long o = atKill[p] + 1; o < sent[p]; o++) {
          again.merge(ScaleOutHarness.countOf(p, ScaleOutHarness.keyOf(p, o)), 1L, Long::sum);
        }
      }
      Map<String, Long> counts = h.counts();
      assertThat(counts.keySet()).isEqualTo(clean.keySet());
      clean.forEach((key, count) -> assertThat(counts.get(key)).as("count of %s", key)
          .isBetween(count, count + again.getOrDefault(key, 0L)));
    }
  }

  @Test
  void aFourthProcessTakesThreeTasksAndTasksThatStayKeepProducingOutput() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      threeProcessesRunning(h);
      Map<String, Set<Integer>> before = h.assignment();
      Map<String, Integer> logAtJoin = new HashMap<>();
      for (String label : List.of("a", "b", "c")) {
        logAtJoin.put(label, h.log(label).length());
      }

      h.start("d");
      h.awaitCounts("3 tasks each", 3, 3, 3, 3);
      Map<String, Set<Integer>> after = h.assignment();
      h.awaitProgress(h.checkpointed(), 20);
      Map<String, String> logOfJoin = new HashMap<>();
      for (String label : List.of("a", "b", "c")) {
        logOfJoin.put(label, h.log(label).substring(logAtJoin.get(label)));
      }
      long[] sent = h.stopFeeding();
      h.awaitProcessed(sent);
      for (String label : List.of("a", "b", "c", "d")) {
        h.stop(label);
      }

      // The fewest moves: d's three, one from each; nothing else changed hands.
      Set<Integer> stayed = new TreeSet<>();
      int moved = 0;
      for (String label : List.of("a", "b", "c")) {
        assertThat(before.get(label)).containsAll(after.get(label));
        moved += before.get(label).size() - after.get(label).size();
        stayed.addAll(after.get(label));
      }
      assertThat(moved).isEqualTo(3);
      assertThat(after.get("d")).hasSize(3);

      // A task that stayed kept running through the join: cooperative, the rebalance revoked only
      // the tasks that moved (how long the join's longest output gap is, bench scale-out measures).
      for (String label : List.of("a", "b", "c")) {
        java.util.regex.Matcher revoke = java.util.regex.Pattern
            .compile("revoked task\\(s\\) \\[([^\\]]*)\\]").matcher(logOfJoin.get(label));
        while (revoke.find()) {
          java.util.regex.Matcher task = java.util.regex.Pattern.compile("\\d+")
              .matcher(revoke.group(1));
          while (task.find()) {
            assertThat(after.get(label)).as("%s revoked task %s during the join, and kept it; "
                + "its log then: %s", label, task.group(), logOfJoin.get(label))
                .doesNotContain(Integer.parseInt(task.group()));
          }
        }
      }
      assertEveryInputInTheOutput(h, sent);
      assertThat(h.counts()).isEqualTo(cleanCounts(sent));
    }
  }

  @Test
  void aRollingRestartWithStaticMembershipMovesNoTask() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      Map<String, Map<String, String>> configs = new TreeMap<>();
      for (String label : List.of("i0", "i1", "i2")) {
        Map<String, String> c = h.config(label);
        c.put("job.instance.id", label);
        // The premise is a restart inside the session timeout: a JVM's stop and start on two
        // loaded cores can take longer than the harness's 6 s, and then the group rightly moves
        // the tasks away.
        c.put("job.coordinator.session.timeout.ms", "30000");
        configs.put(label, c);
        h.start(label, c);
      }
      h.awaitCounts("4 tasks each", 4, 4, 4);
      h.feed();
      h.awaitProgress(new long[TASKS], 20);
      Map<String, Set<Integer>> before = h.assignment();
      Map<String, Integer> settledAt = new HashMap<>();
      for (String label : configs.keySet()) {
        settledAt.put(label, h.log(label).length()); // what each logged up to 4/4/4
      }

      for (String label : configs.keySet()) {
        h.stop(label); // a static member stays in the group through its session timeout
        Files.move(tmp.resolve(label).resolve("child.log"),
            tmp.resolve(label).resolve("child-before-restart.log"));
        h.start(label, configs.get(label));
        KafkaTestSupport.await(Duration.ofSeconds(60), label + " back with its tasks",
            () -> before.get(label).equals(h.assignment().get(label))
                && h.log(label).contains("assigned task(s)"),
            () -> "before " + before + ", now " + h.assignment() + "; log of " + label + ":\n"
                + h.log(label) + "\nwhat the others lost or had refused:\n"
                + configs.keySet().stream().filter(l -> !l.equals(label))
                    .map(l -> l + ": " + h.log(l).lines()
                        .filter(x -> x.contains("lost") || x.contains("refused")
                            || x.contains("fenced") || x.contains("revoked"))
                        .collect(java.util.stream.Collectors.joining("\n  ")))
                    .collect(java.util.stream.Collectors.joining("\n")));
        h.awaitProgress(h.checkpointed(), 10);
      }
      assertThat(h.assignment()).isEqualTo(before);
      for (String label : configs.keySet()) {
        String first = Files.readString(tmp.resolve(label).resolve("child-before-restart.log"))
            .substring(settledAt.get(label));
        assertThat(first).as("%s from 4/4/4 to its restart: nothing assigned or revoked", label)
            .doesNotContain("assigned task(s)").doesNotContain("revoked task(s)");
        assertThat(h.log(label)).as("%s after its restart", label)
            .containsOnlyOnce("assigned task(s)").doesNotContain("revoked task(s)")
            // Its state directory intact: its stores replay only their changelogs' tails.
            .doesNotContainPattern("\\([1-9]\\d* in full");
      }
      long[] sent = h.stopFeeding();
      h.awaitProcessed(sent);
      assertEveryInputInTheOutput(h, sent);
      assertThat(h.counts()).isEqualTo(cleanCounts(sent));
    }
  }

  @Test
  void oneThenThreeThenOneProcessGiveTheOutputOfOneProcessAllAlong() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      h.start("a");
      h.awaitCounts("every task on a", 12);
      h.feed();
      h.awaitProgress(new long[TASKS], 20);
      h.start("b");
      h.start("c");
      h.awaitCounts("4 tasks each", 4, 4, 4);
      h.awaitProgress(h.checkpointed(), 20);
      h.stop("b");
      h.stop("c");
      h.awaitCounts("every task back on a", 12);
      h.awaitProgress(h.checkpointed(), 20);
      long[] sent = h.stopFeeding();
      h.awaitProcessed(sent);
      h.stop("a");

      // Clean moves only: every input once in the output, the counts a single process's.
      Map<String, Integer> seen = new HashMap<>();
      for (ConsumerRecord<String, String> r : h.output()) {
        seen.merge(r.value(), 1, Integer::sum);
      }
      long total = 0;
      for (long s : sent) {
        total += s;
      }
      assertThat(seen).hasSize((int) total);
      Map<String, Integer> repeated = new TreeMap<>();
      seen.forEach((value, times) -> {
        if (times > 1) {
          repeated.put(value, times);
        }
      });
      assertThat(repeated).as("outputs written more than once").isEmpty();
      assertThat(h.counts()).isEqualTo(cleanCounts(sent));
    }
  }

  @Test
  void aProcessPausedPastItsSessionTimeoutCannotCommitOverTheNewOwners() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      aPausedProcessWritesNothingVisibleOverTheNewOwners(h);
    }
  }

  /**
   * The same zombie under exactly-once: its stores stage their writes until a transaction commits,
   * so what it wrote after the group moved on never reaches a changelog a reader sees, and the
   * tasks it gets back restore from files that never held an aborted write.
   */
  @Test
  void anExactlyOnceProcessPausedPastItsSessionTimeoutWritesNothingVisible() throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      h.with("task.processing.guarantee", "exactly-once");
      aPausedProcessWritesNothingVisibleOverTheNewOwners(h);
    }
  }

  private static void aPausedProcessWritesNothingVisibleOverTheNewOwners(ScaleOutHarness h)
      throws Exception {
    threeProcessesRunning(h);

    // The committed offsets are watched all along: a zombie's commit would take them back.
    List<String> regressions = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicBoolean watching =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread watcher = new Thread(() -> {
      long[] highest = h.checkpointed();
      while (watching.get()) {
        long[] now = h.checkpointed();
        for (int p = 0; p < now.length; p++) {
          if (now[p] < highest[p]) {
            regressions.add("partition " + p + ": " + highest[p] + " -> " + now[p]);
          }
          highest[p] = Math.max(highest[p], now[p]);
        }
      }
    });
    watcher.start();

    h.pause("b"); // SIGSTOP: b does not know; the group drops it after its session timeout
    h.awaitCounts("b's tasks on the other two", 6, 6);
    h.awaitProgress(h.checkpointed(), 30);
    h.resume("b"); // the zombie wakes with its buffers, its open transaction, its old generation
    KafkaTestSupport.await(Duration.ofSeconds(60), "b finding out it lost its tasks",
        () -> h.log("b").contains("lost task(s)"));
    h.withLogsOnFailure(() -> {
      h.awaitCounts("b back in the group", 4, 4, 4);
      h.awaitProgress(h.checkpointed(), 20);
    });
    long[] sent = h.stopFeeding();
    h.awaitProcessed(sent);
    watching.set(false);
    watcher.join();
    for (String label : List.of("a", "b", "c")) {
      h.stop(label);
    }

    assertThat(regressions).as("committed offsets that went back").isEmpty();
    // Nothing the zombie wrote after the group moved on is visible: every input once in the
    // committed output, and the counts a single clean process's.
    Map<String, Integer> seen = new HashMap<>();
    for (ConsumerRecord<String, String> r : h.output()) {
      seen.merge(r.value(), 1, Integer::sum);
    }
    Map<String, Integer> repeated = new TreeMap<>();
    seen.forEach((value, times) -> {
      if (times > 1) {
        repeated.put(value, times);
      }
    });
    assertThat(repeated).as("outputs visible more than once").isEmpty();
    assertEveryInputInTheOutput(h, sent);
    assertThat(h.counts()).isEqualTo(cleanCounts(sent));
  }
}
