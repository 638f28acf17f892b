package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.dsl.window.Windows;
import io.millrace.test.Output;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Windows emitted once whatever fails on the way out, and windows that closed empty still closed
 * after a restart (review findings: each test failed before its fix).
 */
class WindowFixesTest {
  @TempDir Path tmp;

  /** Counts per key per second; the key "b"'s result cannot be passed on. */
  public static final class FailingOnB implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofSeconds(1)).grace(Duration.ZERO))
          .count(Stored.as("per-second"))
          .mapValues(count -> count)
          .filter((window, count) -> {
            if (window.key().equals("b")) {
              throw new IllegalStateException("cannot pass b on");
            }
            return true;
          })
          .to("out");
    }
  }

  /** Counts per key per second. */
  public static final class PerSecond implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofSeconds(1)).grace(Duration.ZERO))
          .count(Stored.as("per-second"))
          .to("out");
    }
  }

  private static List<String> results(TaskTestDriver driver) {
    return driver.outputs("out").stream().map(o -> o.key() + "=" + o.value()).toList();
  }

  @Test
  void aResultThatFailsOnItsWayOutDoesNotMakeTheWindowsOtherKeysComeOutAgain() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("failing", FailingOnB.class, "views", "out"), tmp)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "b", "/", 200);
      driver.pipe("views", "c", "/", 300);
      assertThatThrownBy(() -> driver.pipe("views", "a", "/", 1_500)) // closes the first second
          .hasMessageContaining("cannot pass b on");
      // Under task.error.policy=skip the job goes on with the next record.
      driver.pipe("views", "a", "/", 1_600);
      driver.pipe("views", "c", "/", 2_100); // closes the second second
      assertThat(results(driver)).containsExactly("a@0/1000=1", "c@0/1000=1",
          "a@1000/2000=2");
    }
  }

  @Test
  void windowsThatClosedWithoutARecordAreStillClosedAfterARestart() {
    Path state = tmp.resolve("state");
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("empty", PerSecond.class, "views", "out"), state)) {
      driver.pipe("views", "a", "/", 100);
      driver.pipe("views", "b", "/", 5_000); // closes [0, 1s) and, empty, [1s, 2s) .. [4s, 5s)
      assertThat(results(driver)).containsExactly("a@0/1000=1");
    }
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("empty", PerSecond.class, "views", "out"), state)) {
      driver.pipe("views", "a", "/late", 2_500); // its window closed, empty, before the restart
      driver.endOfStream("views");
      assertThat(results(driver)).containsExactly("b@5000/6000=1");
      assertThat(driver.outputs("out")).extracting(Output::timestamp).containsExactly(5_999L);
    }
  }
}
