package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.dsl.window.Windows;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results an operator holds back until the watermark passes (a join's unmatched records, a
 * window's result) are not late for the operators after it (review finding: they were dropped).
 */
class WatermarkHoldTest {
  private static final long DIFFERENCE = 10_000;
  private static final long GRACE = 2_000;
  private static final long MINUTE = 60_000;

  @TempDir Path tmp;

  /** Views left-joined with clicks, counted per user per minute. */
  public static final class JoinThenWindow implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream("views");
      MessageStream<String, String> clicks = graph.stream("clicks");
      views.leftJoin(clicks, (v, c) -> v + "+" + c, JoinWindows.of(Duration.ofMillis(DIFFERENCE))
              .grace(Duration.ofMillis(GRACE)), StreamJoined.<String, String, String>as(
                  "views-clicks").withValueSerdes(Serdes.string(), Serdes.string()))
          .groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMillis(MINUTE)).grace(Duration.ZERO))
          .count(Stored.as("per-minute"))
          .to("out");
    }
  }

  @Test
  void aLeftJoinsUnmatchedViewIsCountedInItsMinuteByTheWindowAfterIt() {
    // {user, view time, click time or -1}: views near a minute's end without a click come out
    // of the join only after the minute's end.
    long[][] views = {{0, 55_000, -1}, {1, 50_000, 52_000}, {2, 59_999, -1}, {0, 61_000, -1},
        {1, 118_000, -1}, {2, 119_000, 125_000}};
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("join-window", JoinThenWindow.class, "views", "clicks", "out"), tmp)) {
      for (long[] v : views) {
        driver.pipe("views", "u" + v[0], "view", v[1]);
        if (v[2] >= 0) {
          driver.pipe("clicks", "u" + v[0], "click", v[2]);
        }
      }
      driver.pipe("views", "z", "view", 1_000_000); // far on: every join and window closes
      driver.pipe("clicks", "z", "click", 1_000_000);
      List<String> counted = driver.outputs("out").stream()
          .map(o -> o.key() + "=" + o.value()).toList();
      // The model: a left join passes every view on once (with its click or alone), at or after
      // the view's time but never into a later minute than the click's; each counted once.
      TreeMap<String, Long> model = new TreeMap<>();
      for (long[] v : views) {
        long time = Math.max(v[1], v[2]);
        long start = Math.floorDiv(time, MINUTE) * MINUTE;
        model.merge("u" + v[0] + "@" + start + "/" + (start + MINUTE), 1L, Long::sum);
      }
      List<String> expected = new ArrayList<>();
      model.forEach((window, count) -> expected.add(window + "=" + count));
      assertThat(counted).containsExactlyInAnyOrderElementsOf(expected);
    }
  }
}
