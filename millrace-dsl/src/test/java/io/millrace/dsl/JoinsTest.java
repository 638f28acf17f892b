package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.test.Output;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Joins against plain-Java models on generated data (out of order, late, duplicated, unmatched):
 * stream-table (inner, left), table-table (inner, left, outer), stream-stream within a join
 * window (inner, left, outer, a record without a match out only once its window closed); the
 * join window at its edges; joins without a name refused.
 */
class JoinsTest {
  private static final long DIFFERENCE = 10_000;
  private static final long GRACE = 2_000;
  private static final long OUT_OF_ORDER = 3_000;

  @TempDir Path tmp;

  /** Clicks joined with the users table, inner and left. */
  public static final class ClicksWithUsers implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      MessageStream<String, String> clicks = graph.stream("clicks");
      clicks.join(users, (c, u) -> c + "/" + u, Joined.as("clicks-users")).to("inner-out");
      clicks.leftJoin(users, (c, u) -> c + "/" + u, Joined.as("clicks-maybe-users"))
          .to("left-out");
    }
  }

  /** Two tables joined three ways, each result in a store of its own. */
  public static final class TwoTables implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      Table<String, String> accounts = graph.table(Source.<String, String>of("accounts"),
          Stored.<String, String>as("accounts").withValueSerde(Serdes.string()));
      users.join(accounts, (u, a) -> u + "+" + a,
          Stored.<String, String>as("both").withValueSerde(Serdes.string())).toStream()
          .to("inner-out");
      users.leftJoin(accounts, (u, a) -> u + "+" + a,
          Stored.<String, String>as("users-accounts").withValueSerde(Serdes.string()))
          .toStream().to("left-out");
      users.outerJoin(accounts, (u, a) -> u + "+" + a,
          Stored.<String, String>as("either").withValueSerde(Serdes.string())).toStream()
          .to("outer-out");
    }
  }

  /** Views and clicks joined within 10 s, a grace of 2 s, up to 3 s out of order: three ways. */
  public static final class ViewsAndClicks implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream(Source.<String, String>of("views")
          .withMaxOutOfOrder(Duration.ofMillis(OUT_OF_ORDER)));
      MessageStream<String, String> clicks = graph.stream(Source.<String, String>of("clicks")
          .withMaxOutOfOrder(Duration.ofMillis(OUT_OF_ORDER)));
      JoinWindows window = JoinWindows.of(Duration.ofMillis(DIFFERENCE))
          .grace(Duration.ofMillis(GRACE));
      views.join(clicks, (v, c) -> v + "+" + c, window, StreamJoined.<String, String, String>as(
          "inner").withValueSerdes(Serdes.string(), Serdes.string())).to("inner-out");
      views.leftJoin(clicks, (v, c) -> v + "+" + c, window, StreamJoined.<String, String, String>as(
          "left").withValueSerdes(Serdes.string(), Serdes.string())).to("left-out");
      views.outerJoin(clicks, (v, c) -> v + "+" + c, window,
          StreamJoined.<String, String, String>as("outer")
              .withValueSerdes(Serdes.string(), Serdes.string())).to("outer-out");
    }
  }

  /** A stream-table join without a name. */
  public static final class UnnamedStreamTable implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      graph.<String, String>stream("clicks").join(users, (c, u) -> c, Joined.as(""))
          .to("inner-out");
    }
  }

  /** A stream-stream join without a name. */
  public static final class UnnamedStreamStream implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> views = graph.stream("views");
      views.leftJoin(graph.<String, String>stream("clicks"), (v, c) -> v,
          JoinWindows.of(Duration.ofSeconds(1)).grace(Duration.ZERO), null).to("left-out");
    }
  }

  /** A table-table join whose result store has no name. */
  public static final class UnnamedTableTable implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      Table<String, String> accounts = graph.table(Source.<String, String>of("accounts"),
          Stored.<String, String>as("accounts").withValueSerde(Serdes.string()));
      users.outerJoin(accounts, (u, a) -> u, Stored.<String, String>as(null)
          .withValueSerde(Serdes.string())).toStream().to("outer-out");
    }
  }

  private static List<String> lines(TaskTestDriver driver, String stream) {
    List<String> lines = new ArrayList<>();
    for (Output o : driver.outputs(stream)) {
      lines.add(o.key() + "=" + o.value() + "@" + o.timestamp());
    }
    return lines;
  }

  @Test
  void streamTableJoinsGiveWhatTheirModelGives() {
    Random random = new Random(41);
    Map<String, String> users = new HashMap<>();
    List<String> inner = new ArrayList<>();
    List<String> left = new ArrayList<>();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("clicks-users",
        ClicksWithUsers.class, "users", "clicks", "inner-out", "left-out"), tmp)) {
      String lastClick = null;
      String lastUser = null;
      for (int i = 0; i < 3_000; i++) {
        long time = 1_000_000 + i * 10L - random.nextInt(2_000); // out of order
        if (random.nextInt(3) == 0) {
          String user = "u" + random.nextInt(30);
          String name = random.nextInt(6) == 0 ? null : "name" + i; // some deletes
          driver.pipe("users", user, name, time);
          if (name == null) {
            users.remove(user);
          } else {
            users.put(user, name);
          }
        } else {
          boolean duplicate = lastClick != null && random.nextInt(10) == 0;
          String user = duplicate ? lastUser : "u" + random.nextInt(40); // u30..u39: never
          String click = duplicate ? lastClick : "c" + i;
          driver.pipe("clicks", user, click, time);
          String match = users.get(user);
          if (match != null) {
            inner.add(user + "=" + click + "/" + match + "@" + time);
          }
          left.add(user + "=" + click + "/" + match + "@" + time);
          lastClick = click;
          lastUser = user;
        }
      }
      assertThat(inner).as("the data has matches").hasSizeGreaterThan(500);
      assertThat(left.size() - inner.size()).as("and clicks without one").isGreaterThan(200);
      assertThat(lines(driver, "inner-out")).isEqualTo(inner);
      assertThat(lines(driver, "left-out")).isEqualTo(left);
    }
  }

  @Test
  void tableTableJoinsGiveWhatTheirModelsGive() {
    Random random = new Random(43);
    Map<String, String> users = new HashMap<>();
    Map<String, String> accounts = new HashMap<>();
    Map<String, Map<String, String>> results = Map.of("inner-out", new HashMap<>(),
        "left-out", new HashMap<>(), "outer-out", new HashMap<>());
    Map<String, List<String>> expected = Map.of("inner-out", new ArrayList<>(),
        "left-out", new ArrayList<>(), "outer-out", new ArrayList<>());
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("tables", TwoTables.class,
        "users", "accounts", "inner-out", "left-out", "outer-out"), tmp)) {
      for (int i = 0; i < 3_000; i++) {
        boolean isUser = random.nextBoolean();
        String key = "k" + random.nextInt(25);
        String value = random.nextInt(4) == 0 ? null : (isUser ? "u" : "a") + i;
        long time = 5_000 + i - random.nextInt(100);
        driver.pipe(isUser ? "users" : "accounts", key, value, time);
        Map<String, String> side = isUser ? users : accounts;
        if (value == null) {
          side.remove(key);
        } else {
          side.put(key, value);
        }
        String u = users.get(key);
        String a = accounts.get(key);
        for (String out : List.of("inner-out", "left-out", "outer-out")) {
          boolean joined = u != null && a != null || out.equals("left-out") && u != null
              || out.equals("outer-out") && (u != null || a != null);
          String next = joined ? u + "+" + a : null;
          String before = results.get(out).get(key);
          if (next != null || before != null) {
            expected.get(out).add(key + "=" + next + "@" + time);
          }
          if (next == null) {
            results.get(out).remove(key);
          } else {
            results.get(out).put(key, next);
          }
        }
      }
      for (String out : List.of("inner-out", "left-out", "outer-out")) {
        assertThat(lines(driver, out)).as(out).isEqualTo(expected.get(out));
      }
      assertThat(expected.get("inner-out")).as("the data has results").hasSizeGreaterThan(300);
      for (int k = 0; k < 25; k++) {
        assertThat(driver.<String, String>store("either").get("k" + k))
            .isEqualTo(results.get("outer-out").get("k" + k));
      }
    }
  }

  /** A record of the model: its side, key, value and time, and whether it came on time. */
  private record Rec(boolean left, String key, String value, long time, boolean onTime) {}

  @Test
  void streamStreamJoinsGiveWhatTheirModelGivesAndNothingUnmatchedBeforeItsWindowCloses() {
    Random random = new Random(47);
    List<Rec> records = new ArrayList<>();
    long maxViews = Long.MIN_VALUE;
    long maxClicks = Long.MIN_VALUE;
    long watermark = Long.MIN_VALUE;
    int late = 0;
    Map<String, Integer> seen = new HashMap<>(Map.of("left-out", 0, "outer-out", 0));
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("views-clicks",
        ViewsAndClicks.class, "views", "clicks", "inner-out", "left-out", "outer-out"), tmp)) {
      long clock = 1_000_000;
      Rec previous = null;
      for (int i = 0; i < 3_000; i++) {
        clock += random.nextInt(400);
        boolean left = random.nextBoolean();
        // Mostly up to 4 s behind; one in twenty up to 30 s: late.
        long time = clock - random.nextInt(random.nextInt(20) == 0 ? 30_000 : 4_000);
        String key = "k" + random.nextInt(40);
        String value = (left ? "v" : "c") + i;
        if (previous != null && random.nextInt(15) == 0) { // a duplicate
          left = previous.left();
          key = previous.key();
          value = previous.value();
          time = previous.time();
        }
        boolean onTime = watermark == Long.MIN_VALUE || time + GRACE >= watermark;
        late += onTime ? 0 : 1;
        Rec rec = new Rec(left, key, value, time, onTime);
        records.add(rec);
        previous = rec;
        driver.pipe(left ? "views" : "clicks", key, value, time);
        if (left) {
          maxViews = Math.max(maxViews, time);
        } else {
          maxClicks = Math.max(maxClicks, time);
        }
        if (maxViews != Long.MIN_VALUE && maxClicks != Long.MIN_VALUE) {
          watermark = Math.max(watermark, Math.min(maxViews, maxClicks) - OUT_OF_ORDER);
        }
        for (String out : List.of("left-out", "outer-out")) {
          List<Output> outputs = driver.outputs(out);
          for (Output o : outputs.subList(seen.get(out), outputs.size())) {
            String v = (String) o.value();
            if (v.startsWith("null+") || v.endsWith("+null")) {
              assertThat(watermark).as("%s out at watermark %d: its window had closed", v,
                  watermark).isGreaterThan(o.timestamp() + DIFFERENCE + GRACE);
            }
          }
          seen.put(out, outputs.size());
        }
      }
      driver.endOfStream("views");
      driver.endOfStream("clicks");
      driver.advanceTime(Duration.ofSeconds(1)); // a tick writes the last closes
      assertThat(late).as("the data has late records").isGreaterThan(20);
      Map<String, List<String>> model = model(records);
      for (String out : List.of("inner-out", "left-out", "outer-out")) {
        assertThat(sorted(lines(driver, out))).as(out).isEqualTo(sorted(model.get(out)));
      }
      assertThat(model.get("inner-out")).as("the data has matches").hasSizeGreaterThan(500);
      assertThat(model.get("outer-out").size() - model.get("left-out").size())
          .as("and clicks without one").isGreaterThan(20);
      try (var all = driver.<byte[], byte[]>store("left-left").all()) {
        assertThat(all.hasNext()).as("every input ended: the buffers are empty").isFalse();
      }
    }
  }

  /** Every pair of on-time records within the difference; then the unmatched ones. */
  private static Map<String, List<String>> model(List<Rec> records) {
    List<String> inner = new ArrayList<>();
    Map<Rec, Boolean> matched = new java.util.IdentityHashMap<>();
    for (Rec l : records) {
      for (Rec r : records) {
        if (l.left() && !r.left() && l.onTime() && r.onTime() && l.key().equals(r.key())
            && Math.abs(l.time() - r.time()) <= DIFFERENCE) {
          inner.add(l.key() + "=" + l.value() + "+" + r.value() + "@"
              + Math.max(l.time(), r.time()));
          matched.put(l, true);
          matched.put(r, true);
        }
      }
    }
    List<String> left = new ArrayList<>(inner);
    List<String> outer = new ArrayList<>(inner);
    for (Rec rec : records) {
      if (rec.onTime() && !matched.containsKey(rec)) {
        if (rec.left()) {
          left.add(rec.key() + "=" + rec.value() + "+null@" + rec.time());
          outer.add(rec.key() + "=" + rec.value() + "+null@" + rec.time());
        } else {
          outer.add(rec.key() + "=null+" + rec.value() + "@" + rec.time());
        }
      }
    }
    return Map.of("inner-out", inner, "left-out", left, "outer-out", outer);
  }

  private static List<String> sorted(List<String> lines) {
    List<String> copy = new ArrayList<>(lines);
    copy.sort(null);
    return copy;
  }

  private static List<String> of(TaskTestDriver driver, String stream, String key) {
    return lines(driver, stream).stream().filter(l -> l.startsWith(key + "=")).toList();
  }

  /** Moves both inputs, so the watermark, to {@code time} (no out-of-orderness: 3 s added). */
  private static void watermarkTo(TaskTestDriver driver, long time) {
    driver.pipe("views", "x", "x", time + OUT_OF_ORDER);
    driver.pipe("clicks", "x", "x", time + OUT_OF_ORDER);
  }

  @Test
  void theJoinWindowTakesAMatchExactlyAtItsEndAndARecordUntilTheWatermarkPassesItsEndPlusGrace() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("edges",
        ViewsAndClicks.class, "views", "clicks", "inner-out", "left-out", "outer-out"), tmp)) {
      driver.pipe("views", "a", "va", 100_000);
      driver.pipe("clicks", "a", "c-at-start", 100_000 - DIFFERENCE); // exactly t - d: a match
      driver.pipe("clicks", "a", "c-before-start", 100_000 - DIFFERENCE - 1); // one before: none
      driver.pipe("clicks", "a", "c-at-end", 100_000 + DIFFERENCE); // exactly t + d: a match
      driver.pipe("clicks", "a", "c-past-end", 100_000 + DIFFERENCE + 1); // one past: none
      assertThat(of(driver, "inner-out", "a")).containsExactly("a=va+c-at-start@100000",
          "a=va+c-at-end@110000");

      driver.pipe("views", "f", "vf", 200_000); // never matched
      watermarkTo(driver, 200_000 + DIFFERENCE + GRACE); // its end plus grace: still open
      assertThat(of(driver, "left-out", "f")).as("not out before its window closes").isEmpty();
      driver.pipe("clicks", "f", "cf", 200_000 + DIFFERENCE); // on time (t + grace = watermark)
      assertThat(of(driver, "left-out", "f")).containsExactly("f=vf+cf@210000");

      driver.pipe("views", "g", "vg", 300_000);
      watermarkTo(driver, 300_000 + DIFFERENCE + GRACE);
      assertThat(of(driver, "left-out", "g")).isEmpty();
      watermarkTo(driver, 300_000 + DIFFERENCE + GRACE + 1); // passed: closed
      assertThat(of(driver, "left-out", "g")).containsExactly("g=vg+null@300000");
      // The watermark is 312001: a record at 309999 is more than the grace behind it.
      driver.pipe("clicks", "g", "late-cg", 300_000 + DIFFERENCE - 1);
      assertThat(of(driver, "left-out", "g")).as("late: dropped, the unmatched record stands")
          .containsExactly("g=vg+null@300000");
      assertThat(of(driver, "outer-out", "g")).containsExactly("g=vg+null@300000");
      // At 310001 it is on time (its time plus the grace is the watermark), and unmatched.
      driver.pipe("clicks", "g", "cg-on-time", 300_000 + DIFFERENCE + 1);
      driver.endOfStream("views");
      driver.endOfStream("clicks");
      assertThat(of(driver, "outer-out", "g")).containsExactly("g=vg+null@300000",
          "g=null+cg-on-time@310001");
    }
  }

  @Test
  void aLeftJoinsRecordWithALateMatchWithinItsWindowComesOutJoinedOnlyNeverFirstWithNull() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("kafka-10847",
        ViewsAndClicks.class, "views", "clicks", "inner-out", "left-out", "outer-out"), tmp)) {
      driver.pipe("views", "a", "va", 1_000);
      driver.pipe("clicks", "b", "cb", 2_000); // another key: the left record has no match yet
      driver.pipe("views", "b", "vb", 6_000);
      driver.pipe("clicks", "a", "ca", 9_000); // a's match, 8 s later, out of order for b
      driver.endOfStream("views");
      driver.endOfStream("clicks");
      assertThat(lines(driver, "left-out")).containsExactlyInAnyOrder("a=va+ca@9000",
          "b=vb+cb@6000");
      assertThat(lines(driver, "outer-out")).containsExactlyInAnyOrder("a=va+ca@9000",
          "b=vb+cb@6000");
    }
  }

  @Test
  void aRestartedJoinFindsItsBufferedRecordsInItsStoresAndTakesNoRecordThatWasLate() {
    Path state = tmp.resolve("state");
    Map<String, String> job = DslDrivers.job("restarted", ViewsAndClicks.class, "views",
        "clicks", "inner-out", "left-out", "outer-out");
    try (TaskTestDriver driver = DslDrivers.driver(job, state)) {
      driver.pipe("views", "k", "vk", 100_000); // waits for a click, in left-left
      watermarkTo(driver, 105_000);
      assertThat(of(driver, "inner-out", "k")).isEmpty();
    }
    try (TaskTestDriver driver = DslDrivers.driver(job, state)) {
      driver.pipe("clicks", "k", "late-ck", 102_000); // more than the grace behind 105000
      driver.pipe("clicks", "k", "ck", 104_000);
      assertThat(of(driver, "inner-out", "k")).as("the view waited in its store")
          .containsExactly("k=vk+ck@104000");
      driver.endOfStream("views");
      driver.endOfStream("clicks");
      assertThat(of(driver, "outer-out", "k")).containsExactly("k=vk+ck@104000");
    }
  }

  @Test
  void joinsWithoutANameAreRefusedNamingTheOperator() {
    assertThatThrownBy(() -> DslDrivers.driver(DslDrivers.job("unnamed1",
        UnnamedStreamTable.class, "users", "clicks", "inner-out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the name of stream-table join after clicks is missing");
    assertThatThrownBy(() -> DslDrivers.driver(DslDrivers.job("unnamed2",
        UnnamedStreamStream.class, "views", "clicks", "left-out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("windowed leftJoin after views needs a name");
    assertThatThrownBy(() -> DslDrivers.driver(DslDrivers.job("unnamed3",
        UnnamedTableTable.class, "users", "accounts", "outer-out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the store name of table-table outerJoin of users/table:users "
            + "is missing");
    Objects.requireNonNull(tmp);
  }
}
