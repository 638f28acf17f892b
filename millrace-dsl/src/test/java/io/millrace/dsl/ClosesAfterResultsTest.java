package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    return entries(driver, "per-second");
  }

  /** As {@link #entries(TaskTestDriver)}, of {@code store}: a pane start per key. */
  private static List<String> entries(TaskTestDriver driver, String store) {
    List<String> entries = new ArrayList<>();
    try (var all = driver.<byte[], byte[]>store(store).all()) {
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

  /**
   * A close deletes the panes it read once its result is acknowledged, or, where panes before
   * it may be left (the first close of a run, windows passed over without records), those of a
   * range from where the deletions stopped: either way no pane that no open window holds stays.
   */
  @Test
  void hoppingWindowsLeaveOnlyThePanesOfOpenWindowsOnceTheirClosesAreAcknowledged() {
    Map<String, String> job = DslDrivers.job("hops", WindowedAggregationTest.HoppingCounts.class,
        "views", "out"); // 10 s windows every 5 s, a grace of 2 s: panes of 5 s
    job.put("task.commit.ms", "10000");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      for (long t = 1_000; t <= 16_000; t += 5_000) {
        driver.pipe("views", "a", "/", t);
        driver.pipe("views", "b", "/", t + 1);
      }
      driver.pipe("views", "a", "/", 60_000); // closes every window up to [45s, 55s)
      assertThat(driver.outputs("out")).extracting(o -> o.key().toString() + "=" + o.value())
          .containsExactlyInAnyOrder("a@-5000/5000=1", "b@-5000/5000=1", "a@0/10000=2",
              "b@0/10000=2", "a@5000/15000=2", "b@5000/15000=2", "a@10000/20000=2",
              "b@10000/20000=2", "a@15000/25000=1", "b@15000/25000=1");
      assertThat(entries(driver, "hops")).as("nothing deleted before a commit")
          .containsExactly("0", "0", "5000", "5000", "10000", "10000", "15000", "15000", "60000");
      driver.advanceTime(Duration.ofSeconds(11)); // the commit at 10 s, then a tick
      assertThat(entries(driver, "hops")).as("the closed windows' panes gone")
          .containsExactly("progress", "60000");

      driver.pipe("views", "b", "/", 75_000); // closes [55s, 65s) and [60s, 70s), past a gap
      assertThat(driver.outputs("out")).extracting(o -> o.key().toString() + "=" + o.value())
          .endsWith("a@55000/65000=1", "a@60000/70000=1");
      driver.advanceTime(Duration.ofSeconds(10));
      assertThat(entries(driver, "hops")).containsExactly("progress", "75000");
    }
  }

  /**
   * Under {@code task.error.policy=skip} a close whose result failed keeps its panes (nothing
   * says its result is out); the next close acknowledged deletes them with its own.
   */
  @Test
  void aFailedClosesPanesGoWithTheNextCloseUnderSkip() {
    ResultsThatFailTest.FAIL_ON_B.set(true); // b's next result fails, once
    Map<String, String> job = DslDrivers.job("skips", ResultsThatFailTest.CountFailingOnce.class,
        "views", "out");
    job.put("task.commit.ms", "10000");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "a", "/", 1_100); // closes [0, 1s)
      driver.pipe("views", "b", "/", 1_200);
      // Closes [1s, 2s): b's result fails. The driver throws it to the test, which goes on as
      // the skip policy does.
      assertThatThrownBy(() -> driver.pipe("views", "a", "/", 2_100))
          .hasMessageContaining("cannot pass b on");
      driver.pipe("views", "a", "/", 2_200);
      driver.pipe("views", "a", "/", 3_100); // closes [2s, 3s)
      assertThat(driver.outputs("out")).extracting(o -> o.key().toString())
          .containsExactly("a@0/1000", "a@1000/2000", "a@2000/3000");
      driver.advanceTime(Duration.ofSeconds(11)); // the commit at 10 s, then a tick
      assertThat(entries(driver)).as("b's pane of the failed close gone too")
          .containsExactly("progress", "3000");
    }
  }

  /**
   * Under {@code skip}, a close that fails at the end of the input has no next close to clear
   * its panes: the end's cleanup (every pane, the progress) still waits for the commit and then
   * leaves nothing, so a read of the input from the start counts afresh.
   */
  @Test
  void aCloseThatFailsAtTheEndOfTheInputLeavesNothingOnceTheEndIsAcknowledgedUnderSkip() {
    ResultsThatFailTest.FAIL_ON_B.set(true); // b's next result fails, once
    Map<String, String> job = DslDrivers.job("skips-at-end",
        ResultsThatFailTest.CountFailingOnce.class, "views", "out");
    job.put("task.commit.ms", "10000");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "a", "/", 1_100); // closes [0, 1s)
      driver.pipe("views", "b", "/", 1_200);
      // The end closes [1s, 2s): b's result fails, and the test goes on as the skip policy does.
      assertThatThrownBy(() -> driver.endOfStream("views"))
          .hasMessageContaining("cannot pass b on");
      assertThat(driver.outputs("out")).extracting(o -> o.key().toString())
          .containsExactly("a@0/1000", "a@1000/2000");
      assertThat(entries(driver)).as("nothing deleted before a commit").contains("1000");
      driver.advanceTime(Duration.ofSeconds(11)); // the commit at 10 s, then a tick
      assertThat(entries(driver)).as("b's pane of the failed close and the progress gone")
          .isEmpty();
    }
  }

  /** As the window's: a left join's unmatched record that fails at the end of the input. */
  @Test
  void aLeftJoinsRecordThatFailsAtTheEndOfTheInputLeavesNothingOnceTheEndIsAcknowledged() {
    ResultsThatFailTest.FAIL_ON_B.set(true);
    Map<String, String> job = DslDrivers.job("join-skips-at-end",
        ResultsThatFailTest.LeftJoinFailingOnce.class, "views", "clicks", "out");
    job.put("task.commit.ms", "10000");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      driver.pipe("views", "a", "v1", 100);
      driver.pipe("views", "b", "v2", 200);
      driver.pipe("clicks", "z", "c", 300);
      driver.endOfStream("views");
      assertThatThrownBy(() -> driver.endOfStream("clicks"))
          .hasMessageContaining("cannot pass b on");
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("a=v1+null");
      assertThat(entries(driver, "views-clicks-left")).as("nothing taken out before a commit")
          .isNotEmpty();
      driver.advanceTime(Duration.ofSeconds(11)); // the commit at 10 s, then a tick
      assertThat(entries(driver, "views-clicks-left")).as("b's record and the progress gone")
          .isEmpty();
      assertThat(entries(driver, "views-clicks-right")).isEmpty();
    }
  }
}
