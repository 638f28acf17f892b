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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Session windows against their edges and a plain-Java model, on the test driver. */
class SessionWindowsTest {
  @TempDir Path tmp;

  /** Views per user per session (a gap of 10 s), a grace of 2 s; late views to "late". */
  public static final class SessionCounts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.session(Duration.ofSeconds(10)).grace(Duration.ofSeconds(2)))
          .lateRecordsTo("late")
          .count(Stored.as("sessions"))
          .to("out");
    }
  }

  /** Sums per key and session (a gap of 5 s), a grace of 4 s, 3 s out of order. */
  public static final class SessionSums implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.stream(Source.<String, Long>of("values").withMaxOutOfOrder(Duration.ofSeconds(3)))
          .groupByKey()
          .windowedBy(Windows.session(Duration.ofSeconds(5)).grace(Duration.ofSeconds(4)))
          .reduce(Stored.<String, Long>as("sums").withValueSerde(Serdes.longs()), Long::sum)
          .to("out");
    }
  }

  /** A session aggregate without a merger. */
  public static final class NoMerger implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.session(Duration.ofSeconds(10)).grace(Duration.ZERO))
          .aggregate(Stored.<String, Long>as("agg").withValueSerde(Serdes.longs()), () -> 0L,
              (k, v, a) -> a + 1)
          .to("out");
    }
  }

  private static Map<Object, Object> results(TaskTestDriver driver) {
    Map<Object, Object> results = new LinkedHashMap<>();
    for (Output o : driver.outputs("out")) {
      assertThat(results.put(o.key(), o.value())).as("session " + o.key() + " emitted once")
          .isNull();
    }
    return results;
  }

  @Test
  void aSessionTakesRecordsAtItsEndPlusGapAndClosesOnlyPastEndPlusGapPlusGrace() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("sessions", SessionCounts.class, "views", "late", "out"), tmp)) {
      driver.pipe("views", "a", "/", 0);
      driver.pipe("views", "a", "/", 10_000); // exactly at end + gap: the same session
      driver.pipe("views", "b", "/", 21_000);
      driver.pipe("views", "b", "/", 22_000); // the watermark at a's end + gap + grace
      assertThat(driver.outputs("out")).as("still open: a record at 20 s is on time").isEmpty();
      driver.pipe("views", "a", "/", 20_000); // exactly the grace behind: on time, joins a
      driver.pipe("views", "b", "/", 32_001); // past a's end + gap + grace: a closes
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 20_000), 3L));
      assertThat(driver.outputs("out").get(0).timestamp()).as("at its last record's time")
          .isEqualTo(20_000);
      driver.pipe("views", "a", "/late", 29_999); // more than the grace behind: late
      assertThat(driver.outputs("late")).extracting(Output::key, Output::value)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("a", "/late"));
      driver.endOfStream("views");
      driver.advanceTime(Duration.ofSeconds(1)); // a tick writes the last closes
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 0, 20_000), 3L),
          Map.entry(new Windowed<>("b", 21_000, 22_000), 2L),
          Map.entry(new Windowed<>("b", 32_001, 32_001), 1L));
      try (var all = driver.<byte[], byte[]>store("sessions").all()) {
        assertThat(all.hasNext()).as("every input ended: the store is left empty").isFalse();
      }
    }
  }

  @Test
  void aRecordBetweenTwoOpenSessionsMergesThem() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("merging", SessionCounts.class, "views", "late", "out"), tmp)) {
      driver.pipe("views", "c", "/", 100_000);
      driver.pipe("views", "c", "/", 111_000); // 11 s on: a second session
      driver.pipe("views", "c", "/", 109_500); // within the gap of both, 1.5 s behind
      driver.pipe("views", "c", "/", 125_000); // 14 s on: a third
      driver.endOfStream("views");
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("c", 100_000, 111_000), 3L),
          Map.entry(new Windowed<>("c", 125_000, 125_000), 1L));
      assertThat(driver.outputs("late")).isEmpty();
    }
  }

  @Test
  void sessionsGiveWhatTheirModelGivesOnOutOfOrderAndLateRecords() {
    long gap = 5_000;
    long grace = 4_000;
    long outOfOrder = 3_000;
    Random random = new Random(17);
    Map<String, TreeMap<Long, Long>> taken = new HashMap<>(); // key -> time -> sum of values
    long watermark = Long.MIN_VALUE;
    int late = 0;
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("session-sums", SessionSums.class, "values", "out"), tmp)) {
      long clock = 100_000;
      for (int i = 0; i < 2_000; i++) {
        clock += random.nextInt(2_000);
        // Mostly up to 8 s behind; one in twenty up to 30 s, late.
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
      Map<Object, Object> model = new HashMap<>();
      taken.forEach((key, times) -> {
        List<long[]> sessions = new ArrayList<>(); // start, end, sum
        times.forEach((t, sum) -> {
          long[] last = sessions.isEmpty() ? null : sessions.get(sessions.size() - 1);
          if (last != null && t - last[1] <= gap) {
            last[1] = t;
            last[2] += sum;
          } else {
            sessions.add(new long[] {t, t, sum});
          }
        });
        sessions.forEach(s -> model.put(new Windowed<>(key, s[0], s[1]), s[2]));
      });
      assertThat(late).as("the data has late records").isGreaterThan(5);
      assertThat(model.size()).as("the data has many sessions").isGreaterThan(50);
      assertThat(results(driver)).isEqualTo(model);
    }
  }

  @Test
  void aRestartedTaskFindsItsOpenSessionsInTheStoreAndTakesNoRecordOfAClosedOne() {
    Path state = tmp.resolve("state");
    Map<String, String> job = DslDrivers.job("restarted", SessionCounts.class, "views", "late",
        "out");
    try (TaskTestDriver driver = DslDrivers.driver(job, state)) {
      driver.pipe("views", "a", "/", 0);
      driver.pipe("views", "b", "/", 5_000);
      driver.pipe("views", "b", "/", 12_001); // a closes (0 + 10 s + 2 s < 12.001 s)
      assertThat(results(driver)).containsExactly(Map.entry(new Windowed<>("a", 0, 0), 1L));
    }
    try (TaskTestDriver driver = DslDrivers.driver(job, state)) {
      driver.pipe("views", "a", "/", 9_000); // late before the restart: late after it
      driver.pipe("views", "b", "/", 20_000); // joins b's session, kept in the store
      driver.endOfStream("views");
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("b", 5_000, 20_000), 3L));
      assertThat(driver.outputs("late")).hasSize(1);
    }
  }

  @Test
  void recordsExtendingASessionOverwriteItsEntryUntilOneExtendsItsStart() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("extending", SessionCounts.class, "views", "late", "out"), tmp)) {
      driver.pipe("views", "a", "/", 10_000);
      List<byte[]> first = storeKeys(driver);
      driver.pipe("views", "a", "/", 11_000); // extends the end: the same entry, overwritten
      driver.pipe("views", "a", "/", 10_500); // inside it
      assertThat(storeKeys(driver)).hasSize(1).first().isEqualTo(first.get(0));
      driver.pipe("views", "a", "/", 9_500); // extends the start (within the grace): it moves
      assertThat(storeKeys(driver)).hasSize(1).first().isNotEqualTo(first.get(0));
      driver.endOfStream("views");
      assertThat(results(driver)).containsExactly(
          Map.entry(new Windowed<>("a", 9_500, 11_000), 4L));
    }
  }

  /** The session store's keys, the watermark's progress entry left out. */
  private static List<byte[]> storeKeys(TaskTestDriver driver) {
    List<byte[]> keys = new ArrayList<>();
    try (var all = driver.<byte[], byte[]>store("sessions").all()) {
      while (all.hasNext()) {
        byte[] key = all.next().key();
        if (key[0] != (byte) 0xff) {
          keys.add(key);
        }
      }
    }
    return keys;
  }

  @Test
  void aSessionAggregateWithoutAMergerIsRefused() {
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("no-merger", NoMerger.class, "views", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("store agg")
        .hasMessageContaining("needs a merger");
  }
}
