package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.dsl.window.Windows;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result held back until the watermark passes (a window's, a left join's record without a
 * match) that fails on its way out stays in the operator's store, so that a task restarted
 * after the failure (task.error.policy=fail) passes it on again (review finding: it was lost).
 */
class ResultsThatFailTest {
  /** Armed: the next result for the key "b" fails, once. */
  static final AtomicBoolean FAIL_ON_B = new AtomicBoolean();

  @TempDir Path tmp;

  @BeforeEach
  void arm() {
    FAIL_ON_B.set(true);
  }

  private static boolean failOnceOnB(String key) {
    if (key.equals("b") && FAIL_ON_B.getAndSet(false)) {
      throw new IllegalStateException("cannot pass b on, this once");
    }
    return true;
  }

  /** Counts per key per second; b's first result fails. */
  public static final class CountFailingOnce implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofSeconds(1)).grace(Duration.ZERO))
          .count(Stored.as("per-second"))
          .filter((window, count) -> failOnceOnB(window.key()))
          .to("out");
    }
  }

  /** Views left-joined with clicks within a second; b's first result fails. */
  public static final class LeftJoinFailingOnce implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream("views");
      views.leftJoin(graph.<String, String>stream("clicks"), (v, c) -> v + "+" + c,
              JoinWindows.of(Duration.ofSeconds(1)).grace(Duration.ZERO),
              StreamJoined.<String, String, String>as("views-clicks")
                  .withValueSerdes(Serdes.string(), Serdes.string()))
          .filter((key, value) -> failOnceOnB(key))
          .to("out");
    }
  }

  private static List<String> results(TaskTestDriver driver) {
    return driver.outputs("out").stream().map(o -> o.key() + "=" + o.value()).toList();
  }

  @Test
  void aWindowsResultThatFailedOnItsWayOutComesOutAfterARestart() {
    Path state = tmp.resolve("state");
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("count-fail", CountFailingOnce.class, "views", "out"), state)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "b", "/", 200);
      assertThatThrownBy(() -> driver.pipe("views", "a", "/", 1_500)) // closes [0, 1s)
          .hasMessageContaining("cannot pass b on");
    } // task.error.policy=fail: the task stops here
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("count-fail", CountFailingOnce.class, "views", "out"), state)) {
      driver.pipe("views", "c", "/", 2_100); // the watermark passes [0, 1s) again
      // a's result of [0, 1s) went out before the failure and comes out again: at least once.
      assertThat(results(driver)).containsExactly("a@0/1000=1", "b@0/1000=1",
          "a@1000/2000=1");
    }
  }

  @Test
  void aLeftJoinsUnmatchedRecordThatFailedOnItsWayOutComesOutAfterARestart() {
    Path state = tmp.resolve("state");
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("join-fail",
        LeftJoinFailingOnce.class, "views", "clicks", "out"), state)) {
      driver.pipe("views", "b", "v1", 100);
      driver.pipe("clicks", "z", "c", 100);
      driver.pipe("views", "z", "v2", 5_000);
      assertThatThrownBy(() -> driver.pipe("clicks", "z", "c", 5_000)) // b's window closes
          .hasMessageContaining("cannot pass b on");
    }
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("join-fail",
        LeftJoinFailingOnce.class, "views", "clicks", "out"), state)) {
      driver.pipe("views", "z", "v2", 5_000);
      driver.pipe("clicks", "z", "c", 5_000);
      assertThat(results(driver)).contains("b=v1+null");
    }
  }
}
