package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.dsl.serde.LongSerde;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under at-least-once a closed window's deletions and progress reach its store only once a
 * commit has acknowledged the window's result: before that, the changelog could say the window
 * closed while its result was still on its way, and a crash lose the result for good (the
 * replayed records would find the window closed). On the test driver a commit acknowledges what
 * the task sent (captured) as a container's does.
 */
class ClosesAfterResultsTest {
  @TempDir Path tmp;

  private static Map<String, String> job(String name) {
    Map<String, String> job = DslDrivers.job(name, WindowFixesTest.PerSecond.class, "views",
        "out");
    job.put("task.commit.ms", "10000");
    return job;
  }

  /** The store's entries, as {@code <pane start or "progress">}. */
  private static List<String> entries(TaskTestDriver driver) {
    List<String> entries = new ArrayList<>();
    try (var all = driver.<byte[], byte[]>store("per-second").all()) {
      while (all.hasNext()) {
        byte[] key = all.next().key();
        entries.add(key.length == 0 ? "progress"
            : Long.toString(LongSerde.value(java.util.Arrays.copyOf(key, Long.BYTES))
                ^ Long.MIN_VALUE)); // (pane starts are stored sign-flipped, to sort)
      }
    }
    return entries;
  }

  @Test
  void aClosedWindowLeavesTheStoreOnlyOnceACommitAcknowledgedItsResult() {
    try (TaskTestDriver driver = DslDrivers.driver(job("held"), tmp)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "a", "/", 1_100); // closes [0, 1s)
      assertThat(driver.values("out")).containsExactly(1L);
      assertThat(entries(driver)).as("closed, its result not acknowledged yet: the pane stays, "
          + "no progress").containsExactly("0", "1000");

      driver.advanceTime(Duration.ofSeconds(10)); // a tick, then a commit, both at 10 s
      assertThat(driver.commits()).isEqualTo(1);
      assertThat(entries(driver)).as("written, but not yet looked at by the task")
          .containsExactly("0", "1000");
      driver.advanceTime(Duration.ofSeconds(1)); // the pipeline's next tick
      assertThat(driver.commits()).isEqualTo(1);
      assertThat(entries(driver)).as("after the commit: the pane deleted, the progress stored")
          .containsExactly("progress", "1000");
      driver.pipe("views", "a", "/", 2_100); // closes [1s, 2s)
      assertThat(entries(driver)).containsExactly("progress", "1000", "2000");
    }
  }

  @Test
  void underExactlyOnceTheCloseIsWrittenAtOnceIntoTheTransactionOfItsResult() {
    Map<String, String> job = job("eos");
    job.put("task.processing.guarantee", "exactly-once");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "a", "/", 1_100);
      assertThat(entries(driver)).containsExactly("progress", "1000");
    }
  }

  @Test
  void aCleanStopWritesTheHeldCloseSoARestartEmitsNoWindowAgain() {
    Path state = tmp.resolve("state");
    try (TaskTestDriver driver = DslDrivers.driver(job("stop"), state)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "a", "/", 1_100);
      assertThat(entries(driver)).containsExactly("0", "1000");
    } // a final commit, then the task closes and writes what it held
    try (TaskTestDriver driver = DslDrivers.driver(job("stop"), state)) {
      driver.pipe("views", "a", "/", 2_100);
      assertThat(driver.outputs("out")).extracting(o -> o.key().toString())
          .containsExactly("a@1000/2000");
    }
  }

  /**
   * Once every input ended, every window is out and the cleanup after them (every pane, the
   * progress) waits for their results as each close does, behind them: a clean stop writes it
   * last, so the store keeps no progress that would make a read of the input from the start
   * late.
   */
  @Test
  void anInputThatEndedLeavesNoProgressBehindSoAReadFromTheStartCountsAfresh() {
    Path state = tmp.resolve("state");
    try (TaskTestDriver driver = DslDrivers.driver(job("ended"), state)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "a", "/", 1_100); // closes [0, 1s): its close is held
      driver.pipe("views", "a", "/", 2_100); // closes [1s, 2s)
      driver.endOfStream("views"); // [2s, 3s) out too, then the cleanup, held behind the closes
      assertThat(driver.values("out")).containsExactly(1L, 1L, 1L);
    } // a final commit, then the task closes and writes what it held, in order
    try (TaskTestDriver driver = DslDrivers.driver(job("ended"), state)) {
      driver.pipe("views", "a", "/", 100); // the same times again: not late
      driver.pipe("views", "a", "/", 1_100);
      assertThat(driver.outputs("out")).extracting(o -> o.key().toString())
          .containsExactly("a@0/1000");
      assertThat(entries(driver)).as("the new run's own pane and none left from before")
          .containsExactly("0", "1000");
    }
  }

  /**
   * Closed windows' panes wait in the store for a commit; once a cache's worth of them (and two
   * closes' worth) wait, the task asks for one rather than wait for the periodic one.
   */
  @Test
  void closedWindowsThatLeaveACachesWorthOfPanesWaitingAskForACommit() {
    int keys = 5_000; // half the bound (HeldWrites.COMMIT_AT_ENTRIES, the default cache size)
    try (TaskTestDriver driver = DslDrivers.driver(job("asks"), tmp)) {
      for (int second = 0; second < 2; second++) {
        for (int k = 0; k < keys; k++) {
          driver.pipe("views", "k" + k, "/", second * 1_000L + 100);
        }
      }
      driver.pipe("views", "k0", "/", 2_100); // closes [1s, 2s): two closes' panes wait
      assertThat(driver.values("out")).hasSize(2 * keys);
      assertThat(driver.commits()).as("commits asked for, the periodic one 10 s away")
          .isEqualTo(1);
      driver.pipe("views", "k0", "/", 2_200); // the next record runs the closes' writes
      assertThat(entries(driver)).containsExactly("progress", "2000");
    }
  }
}
