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
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sliding windows against their edges and a plain-Java model, on the test driver. */
class SlidingWindowsTest {
  @TempDir Path tmp;

  /** Views per user in sliding windows of 10 s, a grace of 2 s; late views to "late". */
  public static final class SlidingCounts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.sliding(Duration.ofSeconds(10)).grace(Duration.ofSeconds(2)))
          .lateRecordsTo("late")
          .count(Stored.as("slides"))
          .to("out");
    }
  }

  /** Sums per key in sliding windows of 5 s, a grace of 4 s, 3 s out of order. */
  public static final class SlidingSums implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.stream(Source.<String, Long>of("values").withMaxOutOfOrder(Duration.ofSeconds(3)))
          .groupByKey()
          .windowedBy(Windows.sliding(Duration.ofSeconds(5)).grace(Duration.ofSeconds(4)))
          .reduce(Stored.<String, Long>as("sums").withValueSerde(Serdes.longs()), Long::sum)
          .to("out");
    }
  }

  /** A sliding aggregate without a merger. */
  public static final class NoMerger implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.sliding(Duration.ofSeconds(10)).grace(Duration.ZERO))
          .aggregate(Stored.<String, Long>as("agg").withValueSerde(Serdes.longs()), () -> 0L,
              (k, v, a) -> a + 1)
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
  void aSlidingWindowHoldsARecordAtItsEndAndTakesRecordsUntilItsEndPlusGrace() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("sliding", SlidingCounts.class, "views", "late", "out"), tmp)) {
      driver.pipe("views", "a", "/", 0);
      driver.pipe("views", "a", "/", 10_000); // exactly d after: [0, 10 s] holds both ends
      assertThat(results(driver)).as("[-10 s, 0] closed at 0 plus grace").containsExactly(
          Map.entry(new Windowed<>("a", -10_000, 0), 1L));
      driver.pipe("views", "b", "/", 12_000); // the watermark at [0, 10 s]'s end plus grace
      driver.pipe("views", "a", "/", 10_000); // exactly the grace behind: on time
      assertThat(results(driver)).hasSize(1);
      driver.pipe("views", "b", "/", 12_001); // one past: [0, 10 s] closes
      assertThat(results(driver)).containsEntry(new Windowed<>("a", 0, 10_000), 3L).hasSize(2);
      assertThat(driver.outputs("out").get(1).timestamp()).as("at the window's end")
          .isEqualTo(10_000);
      driver.pipe("views", "a", "/late", 9_999); // more than the grace behind: late
      assertThat(driver.outputs("late")).extracting(Output::value).containsExactly("/late");
      driver.endOfStream("views");
      driver.advanceTime(Duration.ofSeconds(1)); // a tick writes the last closes
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", -10_000, 0), 1L),
          Map.entry(new Windowed<>("a", 0, 10_000), 3L),
          Map.entry(new Windowed<>("a", 1, 10_001), 2L),
          Map.entry(new Windowed<>("b", 2_000, 12_000), 1L),
          Map.entry(new Windowed<>("b", 2_001, 12_001), 2L),
          Map.entry(new Windowed<>("b", 12_001, 22_001), 1L));
      try (var all = driver.<byte[], byte[]>store("slides").all()) {
        assertThat(all.hasNext()).as("every input ended: the store is left empty").isFalse();
      }
    }
  }

  @Test
  void aRecordIsStoredOnceHoweverManyWindowsItFallsIn() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("once", SlidingCounts.class, "views", "late", "out"), tmp)) {
      for (int i = 0; i < 10; i++) {
        driver.pipe("views", "a", "/", 100_000 + i * 1_000L); // each in up to 20 windows
      }
      driver.pipe("views", "a", "/", 100_000); // a second record at one instant: one slice
      try (var all = driver.<byte[], byte[]>store("slides").all()) {
        int values = 0;
        while (all.hasNext()) {
          values += all.next().value().length > 0 ? 1 : 0; // (the time index's entries are keys)
        }
        assertThat(values).as("one slice per instant, plus the progress").isLessThanOrEqualTo(11);
      }
    }
  }

  @Test
  void slidingWindowsGiveWhatTheirModelGivesOnOutOfOrderAndLateRecords() {
    long d = 5_000;
    long grace = 4_000;
    long outOfOrder = 3_000;
    Random random = new Random(23);
    Map<String, TreeMap<Long, Long>> taken = new HashMap<>(); // key -> time -> sum of values
    long watermark = Long.MIN_VALUE;
    int late = 0;
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("sliding-sums", SlidingSums.class, "values", "out"), tmp)) {
      long clock = 100_000;
      for (int i = 0; i < 1_500; i++) {
        clock += random.nextInt(1_500);
        long t = clock - random.nextInt(random.nextInt(20) == 0 ? 30_000 : 8_000);
        String key = "k" + random.nextInt(5);
        long value = random.nextInt(10);
        driver.pipe("values", key, value, t);
        if (watermark != Long.MIN_VALUE && t + grace < watermark) {
          late++;
        } else {
          taken.computeIfAbsent(key, k -> new TreeMap<>()).merge(t, value, Long::sum);
        }
        watermark = Math.max(watermark, t - outOfOrder);
      }
      driver.endOfStream("values");
      assertThat(late).as("the data has late records").isGreaterThan(5);
      assertThat(results(driver)).isEqualTo(model(taken, d));
    }
  }

  /** Kafka Streams' sliding windows: one ending at each record, one starting just after it. */
  private static Map<Object, Object> model(Map<String, TreeMap<Long, Long>> taken, long d) {
    Map<Object, Object> model = new HashMap<>();
    taken.forEach((key, times) -> {
      TreeSet<Long> ends = new TreeSet<>();
      times.keySet().forEach(t -> {
        ends.add(t);
        ends.add(t + d + 1);
      });
      for (long end : ends) {
        Map<Long, Long> held = times.subMap(end - d, true, end, true);
        if (!held.isEmpty()) {
          model.put(new Windowed<>(key, end - d, end),
              held.values().stream().mapToLong(Long::longValue).sum());
        }
      }
    });
    return model;
  }

  /** Records of five keys in time order, some at one instant, each of value 1. */
  private static Map<String, TreeMap<Long, Long>> pipeInOrder(TaskTestDriver driver,
      Random random, long from, int records) {
    Map<String, TreeMap<Long, Long>> taken = new HashMap<>();
    long clock = from;
    for (int i = 0; i < records; i++) {
      clock += random.nextInt(4) == 0 ? 0 : random.nextInt(700);
      String key = "u" + random.nextInt(5);
      driver.pipe("views", key, "/", clock);
      taken.computeIfAbsent(key, k -> new TreeMap<>()).merge(clock, 1L, Long::sum);
    }
    return taken;
  }

  @Test
  void aRestartedTaskEmitsEachWindowOnceAsAnUnbrokenRunWould() {
    Path state = tmp.resolve("state");
    Map<String, String> job = DslDrivers.job("restarted", SlidingCounts.class, "views", "late",
        "out");
    Random random = new Random(7);
    Map<String, TreeMap<Long, Long>> taken = new HashMap<>();
    Map<Object, Object> results = new HashMap<>();
    long clock = 50_000;
    for (int run = 0; run < 3; run++) {
      try (TaskTestDriver driver = DslDrivers.driver(job, state)) {
        pipeInOrder(driver, random, clock, 400).forEach((key, times) -> times.forEach((t, n) ->
            taken.computeIfAbsent(key, k -> new TreeMap<>()).merge(t, n, Long::sum)));
        clock = taken.values().stream().mapToLong(TreeMap::lastKey).max().orElseThrow();
        if (run == 2) {
          driver.endOfStream("views");
        }
        for (Output o : driver.outputs("out")) {
          assertThat(results.put(o.key(), o.value())).as("window " + o.key() + " emitted once, "
              + "across restarts").isNull();
        }
        assertThat(driver.outputs("late")).as("in order: nothing late").isEmpty();
      }
    }
    assertThat(results).hasSizeGreaterThan(500).isEqualTo(model(taken, 10_000));
  }

  @Test
  void aQuietInputsLastWindowsCloseOnTheWallClockAndLeaveTheStoreEmpty() {
    Map<String, String> job = DslDrivers.job("quiet", SlidingCounts.class, "views", "late", "out");
    job.put("dsl.watermark.wallclock.advance", "true");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      driver.pipe("views", "a", "/", 10_000);
      driver.pipe("views", "a", "/", 15_000);
      driver.advanceTime(Duration.ofMinutes(2)); // event time past every window's end and grace
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 10_000), 1L),
          Map.entry(new Windowed<>("a", 5_000, 15_000), 2L),
          Map.entry(new Windowed<>("a", 10_001, 20_001), 1L));
      driver.advanceTime(Duration.ofMinutes(2)); // (a close with nothing left in the index)
      try (var all = driver.<byte[], byte[]>store("slides").all()) {
        while (all.hasNext()) {
          assertThat(all.next().value()).as("only the progress is left").isNotEmpty()
              .hasSize(Long.BYTES);
        }
      }
    }
  }

  @Test
  void slicesAndTheirIndexLeaveTheStoreOnceNoOpenWindowNeedsThem() {
    Map<String, String> job = DslDrivers.job("bounded", SlidingCounts.class, "views", "late",
        "out");
    job.put("task.commit.ms", "1000");
    try (TaskTestDriver driver = DslDrivers.driver(job, tmp)) {
      long clock = 0;
      for (int i = 0; i < 20_000; i++) {
        clock += 100; // 2,000 s of event time, each key every 500 ms
        driver.pipe("views", "u" + i % 5, "/", clock);
        if (i % 100 == 99) {
          driver.advanceTime(Duration.ofSeconds(1)); // a commit: the closes held till now go
        }
      }
      driver.advanceTime(Duration.ofSeconds(1)); // a tick after the last commit writes them
      // Open: slices within 10 s (the window) + 1 ms + 2 s (the grace) of the watermark.
      long open = 5 * (12_001 / 500 + 2);
      int entries = 0;
      try (var all = driver.<byte[], byte[]>store("slides").all()) {
        while (all.hasNext()) {
          all.next();
          entries++;
        }
      }
      assertThat(entries).as("each open slice and its index entry, and the progress")
          .isBetween(2, (int) (2 * open + 1));
      assertThat(driver.outputs("out")).hasSizeGreaterThan(30_000);
    }
  }

  @Test
  void aSlidingAggregateWithoutAMergerIsRefused() {
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("no-merger", NoMerger.class, "views", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("store agg")
        .hasMessageContaining("needs a merger");
  }
}
