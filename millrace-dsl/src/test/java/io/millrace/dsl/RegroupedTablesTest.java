package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.serde.Serdes;
import io.millrace.test.TaskTestDriver;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table re-grouped by a new key ({@link Table#groupBy}) and aggregated per group with an adder
 * and a subtractor, against a plain-Java model of the rows: every row change moves the row's
 * old value out of its old group and its new value into its new one, a deleted row leaves its
 * group, a row that stays in its group updates it once, a row whose pair did not change updates
 * nothing; a subtractor's null empties a group; in-place aggregators (straight before, and behind
 * a table's filter), a re-grouped aggregate re-grouped again, a table-table join's result, a
 * value the selector fails on (in no group, its row still changing).
 * Bad input: no value serde, no subtractor, no store name.
 */
public class RegroupedTablesTest {
  @TempDir Path tmp;

  /** Users as "country,score" (or "-": in no country); per country users and total score. */
  public static final class CountryStats implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      GroupedTable<String, Long> byCountry = users(graph)
          .groupBy((user, line) -> line.equals("-") ? null
                  : new KeyValue<>(line.split(",")[0], Long.parseLong(line.split(",")[1])),
              Grouped.with(Serdes.string(), Serdes.longs()));
      byCountry.count(Stored.as("users-per-country")).toStream().to("counts");
      byCountry.aggregate(Stored.<String, Long>as("score-per-country")
                  .withValueSerde(Serdes.longs()), () -> 0L,
              (country, score, sum) -> sum + score, (country, score, sum) -> sum - score)
          .toStream().to("sums");
    }
  }

  /** The table of input stream "users" in store "users". */
  static Table<String, String> users(StreamGraph graph) {
    return graph.table(Source.<String, String>of("users"),
        Stored.<String, String>as("users").withValueSerde(Serdes.string()));
  }

  /** Per country its users' names joined by reduce; a country left by all is deleted. */
  public static final class CountryMembers implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      users(graph)
          .groupBy((user, country) -> new KeyValue<>(country, "|" + user + "|"),
              Grouped.with(Serdes.string(), Serdes.string()))
          .reduce(Stored.as("members"), (all, one) -> all + one, (all, one) -> {
            String left = all.replace(one, "");
            return left.isEmpty() ? null : left;
          })
          .toStream().to("out");
    }
  }

  /**
   * Spending per user summed by an aggregator that adds in place (one long[] per user), the
   * users then counted per band (under 100, 100 and over).
   */
  public static final class SpendingBands implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      countPerBand(spentPerUser(graph));
    }
  }

  /**
   * {@link SpendingBands} with the totals first through a table's filter (a table of its own,
   * whose store would hold the very object the in-place aggregator changes).
   */
  public static final class FilteredSpendingBands implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      countPerBand(spentPerUser(graph).filter((user, total) -> total[0] > 0,
          Stored.as("spending")));
    }
  }

  /** Each user's spending, summed in place. */
  static Table<String, long[]> spentPerUser(StreamGraph graph) {
    return graph.<String, Long>stream("spend").groupByKey()
        .aggregate(Stored.<String, long[]>as("spent").withValueSerde(new LongArraySerde()),
            () -> new long[1], (user, amount, total) -> {
              total[0] += amount; // in place: the old value must be read before this
              return total;
            })
        .toTable();
  }

  /** The users per band of spending, to "out". */
  static void countPerBand(Table<String, long[]> spent) {
    spent.groupBy((user, total) -> new KeyValue<>(total[0] >= 100 ? "big" : "small", 1L),
            Grouped.with(Serdes.string(), Serdes.longs()))
        .count(Stored.as("users-per-band"))
        .toStream().to("out");
  }

  /**
   * Users per country ({@link CountryStats}' count), re-grouped again: countries per size (how
   * many countries have n users).
   */
  public static final class CountriesPerSize implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      users(graph)
          .groupBy((user, country) -> new KeyValue<>(country, user),
              Grouped.with(Serdes.string(), Serdes.string()))
          .count(Stored.as("users-per-country"))
          .groupBy((country, n) -> n == 0 ? null : new KeyValue<>("size" + n, country),
              Grouped.with(Serdes.string(), Serdes.string()))
          .count(Stored.as("countries-per-size"))
          .toStream().to("out");
    }
  }

  /** Users' countries joined with their plans (a table-table join), counted per plan. */
  public static final class PlansJoined implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> countries = graph.table(Source.<String, String>of("countries"),
          Stored.<String, String>as("countries").withValueSerde(Serdes.string()));
      Table<String, String> plans = graph.table(Source.<String, String>of("plans"),
          Stored.<String, String>as("plans").withValueSerde(Serdes.string()));
      countries.join(plans, (country, plan) -> plan + "@" + country,
              Stored.<String, String>as("user-plans").withValueSerde(Serdes.string()))
          .groupBy((user, planAt) -> new KeyValue<>(planAt.split("@")[0], user),
              Grouped.with(Serdes.string(), Serdes.string()))
          .count(Stored.as("users-per-plan"))
          .toStream().to("out");
    }
  }

  /** A long[] as eight bytes a value. */
  public static final class LongArraySerde implements Serde<long[]> {
    @Override
    public byte[] toBytes(long[] values) {
      if (values == null) {
        return null;
      }
      ByteBuffer b = ByteBuffer.allocate(8 * values.length);
      for (long v : values) {
        b.putLong(v);
      }
      return b.array();
    }

    @Override
    public long[] fromBytes(byte[] bytes) {
      if (bytes == null) {
        return null;
      }
      long[] values = new long[bytes.length / 8];
      ByteBuffer.wrap(bytes).asLongBuffer().get(values);
      return values;
    }
  }

  /** groupBy without the value serde. */
  public static final class NoValueSerde implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      users(graph)
          .groupBy((u, c) -> new KeyValue<>(c, u), Grouped.with(Serdes.string(), null))
          .count(Stored.as("n")).toStream().to("out");
    }
  }

  /** reduce without a subtractor. */
  public static final class NoSubtractor implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      users(graph)
          .groupBy((u, c) -> new KeyValue<>(c, u), Grouped.with(Serdes.string(),
              Serdes.string()))
          .reduce(Stored.as("n"), (a, b) -> a + b, null).toStream().to("out");
    }
  }

  /** count without a store name. */
  public static final class NoStoreName implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      users(graph)
          .groupBy((u, c) -> new KeyValue<>(c, u), Grouped.with(Serdes.string(),
              Serdes.string()))
          .count(null).toStream().to("out");
    }
  }

  @Test
  void eachRowChangeMovesItsValueBetweenGroupsAsAModelOfTheRowsSays() {
    Random random = new Random(41);
    Map<String, String> rows = new HashMap<>(); // user -> "country,score"
    List<String> counts = new ArrayList<>();
    List<String> sums = new ArrayList<>();
    Map<String, Long> modelCounts = new HashMap<>();
    Map<String, Long> modelSums = new HashMap<>();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("country-stats",
        CountryStats.class, "users", "counts", "sums"), tmp)) {
      for (int i = 0; i < 3_000; i++) {
        String user = "u" + random.nextInt(60);
        int pick = random.nextInt(10);
        String line = pick == 0 ? null : pick == 1 ? "-"
            : "c" + random.nextInt(6) + "," + random.nextInt(8); // repeats: some change nothing
        driver.pipe("users", user, line, i);
        String[] old = group(rows.get(user));
        String[] now = group(line);
        if (line == null) {
          rows.remove(user);
        } else {
          rows.put(user, line);
        }
        // What the group aggregates pass on: the old group's update, then the new one's; a row
        // that stays in its group updates it once; one whose pair is as it was, not at all.
        if (old != null && now != null && Arrays.equals(old, now)) {
          continue;
        }
        if (old != null && (now == null || !old[0].equals(now[0]))) {
          long n = modelCounts.merge(old[0], -1L, Long::sum);
          long s = modelSums.merge(old[0], -Long.parseLong(old[1]), Long::sum);
          counts.add(old[0] + "=" + n);
          sums.add(old[0] + "=" + s);
        }
        if (now != null) {
          long n = modelCounts.merge(now[0], old != null && old[0].equals(now[0]) ? 0L : 1L,
              Long::sum);
          long s = modelSums.merge(now[0], Long.parseLong(now[1])
              - (old != null && old[0].equals(now[0]) ? Long.parseLong(old[1]) : 0), Long::sum);
          counts.add(now[0] + "=" + n);
          sums.add(now[0] + "=" + s);
        }
      }
      assertThat(driver.outputs("counts")).extracting(o -> o.key() + "=" + o.value())
          .isEqualTo(counts);
      assertThat(driver.outputs("sums")).extracting(o -> o.key() + "=" + o.value())
          .isEqualTo(sums);
      for (int c = 0; c < 6; c++) {
        String country = "c" + c;
        long users = rows.values().stream().filter(l -> l.startsWith(country + ",")).count();
        long score = rows.values().stream().filter(l -> l.startsWith(country + ","))
            .mapToLong(l -> Long.parseLong(l.split(",")[1])).sum();
        assertThat(driver.<String, Long>store("users-per-country").get(country)).as(country)
            .isEqualTo(modelCounts.containsKey(country) ? users : null);
        assertThat(driver.<String, Long>store("score-per-country").get(country)).as(country)
            .isEqualTo(modelSums.containsKey(country) ? score : null);
      }
    }
  }

  /** A row's (country, score), or null if it is in no group. */
  private static String[] group(String line) {
    return line == null || line.equals("-") ? null : line.split(",");
  }

  @Test
  void aReducedGroupThatEveryRowLeftIsDeletedAndPassedOnAsNull() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("members",
        CountryMembers.class, "users", "out"), tmp)) {
      driver.pipe("users", "ada", "GB", 1);
      driver.pipe("users", "alan", "GB", 2);
      driver.pipe("users", "ada", "US", 3); // moves: GB loses her, US gains her
      driver.pipe("users", "alan", null, 4); // deleted: GB is empty
      driver.pipe("users", "ada", "US", 5); // the same again: nothing to change
      driver.pipe("users", "alan", "US", 6); // back, in US: updated once
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("GB=|ada|", "GB=|ada||alan|", "GB=|alan|", "US=|ada|", "GB=null",
              "US=|ada||alan|");
      assertThat(driver.<String, String>store("members").get("GB")).isNull();
      assertThat(driver.<String, String>store("members").get("US")).isEqualTo("|ada||alan|");
    }
  }

  @Test
  void anAggregatorThatChangesItsAggregateInPlaceStillMovesItsRowBetweenGroups() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("bands",
        SpendingBands.class, "spend", "out"), tmp)) {
      driver.pipe("spend", "ada", 60L, 1);
      driver.pipe("spend", "alan", 30L, 2);
      driver.pipe("spend", "ada", 50L, 3); // 110: from small to big
      driver.pipe("spend", "alan", 5L, 4); // 35: small still, the same pair: nothing
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("small=1", "small=2", "small=1", "big=1");
    }
  }

  @Test
  void anInPlaceAggregatorBehindATablesFilterStillMovesItsRowBetweenGroups() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("filtered-bands",
        FilteredSpendingBands.class, "spend", "out"), tmp)) {
      driver.pipe("spend", "ada", 60L, 1);
      driver.pipe("spend", "alan", 30L, 2);
      driver.pipe("spend", "ada", 50L, 3); // 110: from small to big
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("small=1", "small=2", "small=1", "big=1");
    }
  }

  @Test
  void aRegroupedTablesAggregateIsATableThatRegroupsInTurn() {
    Random random = new Random(3);
    Map<String, String> rows = new HashMap<>();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("sizes",
        CountriesPerSize.class, "users", "out"), tmp)) {
      for (int i = 0; i < 1_000; i++) {
        String user = "u" + random.nextInt(30);
        String country = random.nextInt(6) == 0 ? null : "c" + random.nextInt(5);
        driver.pipe("users", user, country, i);
        if (country == null) {
          rows.remove(user);
        } else {
          rows.put(user, country);
        }
      }
      Map<String, Long> perCountry = new HashMap<>();
      rows.values().forEach(c -> perCountry.merge(c, 1L, Long::sum));
      Map<Long, Long> perSize = new HashMap<>();
      perCountry.values().forEach(n -> perSize.merge(n, 1L, Long::sum));
      for (long n = 1; n <= 30; n++) {
        Long stored = driver.<String, Long>store("countries-per-size").get("size" + n);
        assertThat(stored == null ? 0L : stored).as("countries of %d users", n)
            .isEqualTo(perSize.getOrDefault(n, 0L));
      }
    }
  }

  @Test
  void aValueTheSelectorFailsOnIsInNoGroupAndItsRowStillChanges() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("bad-line",
        CountryStats.class, "users", "counts", "sums"), tmp)) {
      driver.pipe("users", "bob", "c1,7", 1);
      // No score: the re-grouping fails on the record, naming itself (the error policy decides;
      // the test driver throws), after the table took the value and c1 lost bob's old one.
      assertThatThrownBy(() -> driver.pipe("users", "bob", "c1", 2))
          .hasMessageContaining("table groupBy at users/table:users/groupBy:users-per-country: "
              + "failed on record (key bob, value c1)");
      driver.pipe("users", "bob", "c2,5", 3); // the old value was in no group: c2 gains him
      driver.pipe("users", "bob", null, 4); // and loses him
      assertThat(driver.<String, String>store("users").get("bob")).isNull();
      assertThat(driver.outputs("counts")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("c1=1", "c1=0", "c2=1", "c2=0");
    }
  }

  @Test
  void aTableTableJoinsResultRegroupsAsItsRowsJoinAndLeave() {
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("plans",
        PlansJoined.class, "countries", "plans", "out"), tmp)) {
      driver.pipe("countries", "ada", "GB", 1);
      driver.pipe("plans", "ada", "pro", 2); // joined: pro gains her
      driver.pipe("plans", "alan", "free", 3); // no country yet: no row
      driver.pipe("countries", "alan", "GB", 4); // joined: free gains him
      driver.pipe("plans", "ada", "free", 5); // moves: pro loses her, free gains her
      driver.pipe("countries", "alan", null, 6); // leaves the join: free loses him
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("pro=1", "free=1", "pro=0", "free=2", "free=1");
    }
  }

  @Test
  void aRegroupingWithoutItsValueSerdeOrSubtractorOrStoreNameIsRefusedNamingTheOperator() {
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("no-serde", NoValueSerde.class, "users", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("groupBy of table users/table:users needs the serde of the "
            + "values it groups");
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("no-subtractor", NoSubtractor.class, "users", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("reduce after groupBy of table users/table:users needs a "
            + "subtractor");
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("no-name", NoStoreName.class, "users", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("count after groupBy of table users/table:users needs a store "
            + "name");
  }
}
