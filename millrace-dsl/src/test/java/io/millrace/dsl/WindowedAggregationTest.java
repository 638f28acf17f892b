package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.Windowed;
import io.millrace.dsl.window.Windows;
import io.millrace.test.Output;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Windowed aggregates on event time through the test driver, on RocksDB stores: windows at their
 * edges, hopping windows against a plain-Java model on out-of-order and late records, late
 * records to their side output, and the watermark's idle partitions and wall-clock advance
 * driven by the driver's clock.
 */
class WindowedAggregationTest {
  @TempDir Path tmp;

  /** Views per user per minute, a grace of 10 s; late views to "late". */
  public static final class TumblingCounts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ofSeconds(10)))
          .lateRecordsTo("late")
          .count(Stored.as("counts"))
          .to("out");
    }
  }

  /** Sums of values per key in 60 s windows every 20 s, a grace of 5 s, 3 s out of order. */
  public static final class HoppingSums implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.stream(Source.<String, Long>of("values").withMaxOutOfOrder(Duration.ofSeconds(3)))
          .groupByKey()
          .windowedBy(Windows.hopping(Duration.ofSeconds(60), Duration.ofSeconds(20))
              .grace(Duration.ofSeconds(5)))
          .reduce(Stored.<String, Long>as("sums").withValueSerde(Serdes.longs()), Long::sum)
          .to("out");
    }
  }

  /** Counts per key in 10 s windows every 5 s, a grace of 2 s. */
  public static final class HoppingCounts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.hopping(Duration.ofSeconds(10), Duration.ofSeconds(5))
              .grace(Duration.ofSeconds(2)))
          .count(Stored.as("hops"))
          .to("out");
    }
  }

  /** Counts over two inputs merged, for the watermark across partitions. */
  public static final class TwoInputs implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream("views");
      views.merge(graph.stream("clicks")).groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ZERO))
          .count(Stored.as("both"))
          .to("out");
    }
  }

  /** A windowed aggregate with no grace stated. */
  public static final class NoGrace implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)))
          .count(Stored.as("counts"))
          .to("out");
    }
  }

  private static Map<Object, Object> results(TaskTestDriver driver) {
    Map<Object, Object> results = new LinkedHashMap<>();
    for (Output o : driver.outputs("out")) {
      assertThat(results.put(o.key(), o.value())).as("window " + o.key() + " emitted once")
          .isNull();
    }
    return results;
  }

  @Test
  void aTumblingWindowTakesRecordsUntilItsEndPlusGraceAndEmitsOnceWhenItCloses() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("tumbling", TumblingCounts.class, "views", "late", "out"), tmp)) {
      driver.pipe("views", "a", "/", 0);
      driver.pipe("views", "a", "/", 59_999);
      driver.pipe("views", "a", "/", 60_000); // exactly at the end: the next window's
      driver.pipe("views", "a", "/", 30_000); // out of order, within the grace
      driver.pipe("views", "b", "/", 69_999); // the watermark one short of end + grace
      assertThat(driver.outputs("out")).as("still open").isEmpty();
      driver.pipe("views", "a", "/", 70_000); // end + grace: the first window closes
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 60_000), 3L));
      assertThat(driver.outputs("out").get(0).timestamp()).as("at the window's last instant")
          .isEqualTo(59_999);
      driver.pipe("views", "a", "/late", 59_000); // its only window has closed
      assertThat(driver.outputs("late")).extracting(Output::key, Output::value,
          Output::timestamp).containsExactly(org.assertj.core.groups.Tuple.tuple("a", "/late",
              59_000L));
      driver.endOfStream("views");
      driver.advanceTime(Duration.ofSeconds(1)); // a tick writes the last closes
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 60_000), 3L),
          Map.entry(new Windowed<>("a", 60_000, 120_000), 2L),
          Map.entry(new Windowed<>("b", 60_000, 120_000), 1L));
      try (var all = driver.<byte[], byte[]>store("counts").all()) {
        int entries = 0;
        while (all.hasNext()) {
          all.next();
          entries++;
        }
        assertThat(entries).as("every input ended: the store is left empty").isZero();
      }
    }
  }

  @Test
  void aHoppingWindowTakesRecordsUntilItsEndPlusGraceWhileTheNextOneTakesThemOn() {
    long b = 100_000;
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("hops", HoppingCounts.class, "views", "out"), tmp)) {
      driver.pipe("views", "a", "/", b);
      driver.pipe("views", "a", "/", b + 10_000); // exactly at [b, b+10s)'s end: not in it
      assertThat(results(driver)).as("[b-5s, b+5s) closed at its end plus grace").containsExactly(
          Map.entry(new Windowed<>("a", b - 5_000, b + 5_000), 1L));
      driver.pipe("views", "a", "/", b + 11_999);
      driver.pipe("views", "a", "/", b + 9_000); // [b, b+10s) still open: one short of end+grace
      driver.pipe("views", "a", "/", b + 12_000); // end plus grace: [b, b+10s) closes
      assertThat(results(driver)).containsEntry(new Windowed<>("a", b, b + 10_000), 2L)
          .hasSize(2);
      driver.pipe("views", "a", "/", b + 9_500); // its first window closed, its second open
      driver.endOfStream("views");
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", b - 5_000, b + 5_000), 1L),
          Map.entry(new Windowed<>("a", b, b + 10_000), 2L),
          Map.entry(new Windowed<>("a", b + 5_000, b + 15_000), 5L),
          Map.entry(new Windowed<>("a", b + 10_000, b + 20_000), 3L));
    }
  }

  @Test
  void hoppingWindowsGiveWhatTheirModelGivesOnOutOfOrderAndLateRecords() {
    long size = 60_000;
    long advance = 20_000;
    long grace = 5_000;
    long outOfOrder = 3_000;
    Random random = new Random(11);
    Map<Windowed<String>, Long> model = new HashMap<>();
    long watermark = Long.MIN_VALUE;
    int late = 0;
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("hopping", HoppingSums.class, "values", "out"), tmp)) {
      long clock = 100_000;
      for (int i = 0; i < 2_000; i++) {
        clock += random.nextInt(300);
        // Mostly up to 12 s behind; one in twenty up to 70 s, late for some windows or all.
        long t = clock - random.nextInt(random.nextInt(20) == 0 ? 70_000 : 12_000);
        String key = "k" + random.nextInt(5);
        long value = random.nextInt(10);
        driver.pipe("values", key, value, t);
        boolean taken = false;
        for (long start = Math.floorDiv(t, advance) * advance; start > t - size;
            start -= advance) {
          if (watermark == Long.MIN_VALUE || start + size + grace > watermark) {
            model.merge(new Windowed<>(key, start, start + size), value, Long::sum);
            taken = true;
          }
        }
        late += taken ? 0 : 1;
        watermark = Math.max(watermark, t - outOfOrder);
      }
      driver.endOfStream("values");
      assertThat(late).as("the data has late records").isGreaterThan(5);
      assertThat(results(driver)).isEqualTo(new HashMap<Object, Object>(model));
    }
  }

  @Test
  void anIdlePartitionDoesNotHoldTheOthersBackAfterTheTimeout() {
    Map<String, String> job = DslDrivers.job("idle", TwoInputs.class, "views", "clicks", "out");
    job.put("dsl.watermark.idle.ms", "30000");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      driver.pipe("views", "a", "/", 1_000);
      driver.pipe("views", "a", "/", 200_000);
      assertThat(driver.outputs("out")).as("clicks has had nothing: it holds the watermark")
          .isEmpty();
      driver.advanceTime(Duration.ofSeconds(20));
      driver.pipe("views", "a", "/", 201_000);
      driver.advanceTime(Duration.ofSeconds(15)); // clicks idle 35 s, views 15 s
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 60_000), 1L));
      driver.pipe("clicks", "a", "/", 190_000); // clicks is back: it holds the others again
      driver.pipe("views", "a", "/", 260_000);
      assertThat(results(driver)).hasSize(1);
      driver.pipe("clicks", "a", "/", 250_000);
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 60_000), 1L),
          Map.entry(new Windowed<>("a", 180_000, 240_000), 3L));
    }
  }

  @Test
  void withTheWallClockAdvanceAQuietInputStillClosesItsWindows() {
    Map<String, String> job = DslDrivers.job("wallclock", TumblingCounts.class, "views", "late",
        "out");
    job.put("dsl.watermark.idle.ms", "30000");
    try (TaskTestDriver quiet = DslDrivers.driver(job, tmp.resolve("without"))) {
      quiet.pipe("views", "a", "/", 10_000);
      quiet.advanceTime(Duration.ofMinutes(5));
      assertThat(quiet.outputs("out")).as("without it the window waits").isEmpty();
    }
    job.put("dsl.watermark.wallclock.advance", "true");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp.resolve("with"))) {
      driver.pipe("views", "a", "/", 10_000);
      driver.advanceTime(Duration.ofSeconds(59));
      assertThat(driver.outputs("out")).as("event time 69 s: not end + grace yet").isEmpty();
      driver.advanceTime(Duration.ofSeconds(1));
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 60_000), 1L));
    }
  }

  @Test
  void windowsWithoutAStatedGraceAreRefusedNamingTheOperator() {
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("nograce", NoGrace.class, "views", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("windowedBy at views").hasMessageContaining("grace");
  }

  @Test
  void aRecordWithoutEventTimeFailsNamingTheWindowedOperator() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("notime", TumblingCounts.class, "views", "late", "out"), tmp)) {
      assertThatThrownBy(() -> driver.pipe("views", "a", "/", -1))
          .hasMessageContaining("windowed count at views/windowed-count:counts")
          .hasMessageContaining("no event time");
    }
  }
}
