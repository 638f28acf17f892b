package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.serde.Serdes;
import io.millrace.test.TaskTestDriver;
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
 * Tables against a plain-Java map: a stream's records upserted into a store the user names (a
 * null value deleting), its changes as a stream, a table's filter and mapValues as tables of
 * their own, an aggregate's store as a table, a re-keyed stream's table through its
 * repartition; a table without a store name refused.
 */
class TablesTest {
  @TempDir Path tmp;

  /** A table of "users" in store "users", its changes to "changes". */
  public static final class Users implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.table(Source.<String, String>of("users"),
              Stored.<String, String>as("users").withValueSerde(Serdes.string()))
          .toStream()
          .to("changes");
    }
  }

  /** Clicks counted per user, the counts as a table joined with each view. */
  public static final class CountsAsTable implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, Long> counts = graph.<String, String>stream("clicks").groupByKey()
          .count(Stored.as("click-counts")).toTable();
      graph.<String, String>stream("views")
          .leftJoin(counts, (view, count) -> view + ":" + count, Joined.as("views-clicks"))
          .to("out");
    }
  }

  /** Lines "user,country" re-keyed by country into a table of the last user per country. */
  public static final class Rekeyed implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("lines")
          .map((k, line) -> new KeyValue<>(line.split(",")[1], line.split(",")[0]))
          .toTable(Stored.<String, String>as("by-country").withValueSerde(Serdes.string()))
          .toStream().to("out");
    }
  }

  /**
   * Users as "country,score": those scoring 50 or more a table of their own; every user's country
   * a table, counted per country.
   */
  public static final class DerivedTables implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table(Source.<String, String>of("users"),
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      users.filter((user, line) -> Long.parseLong(line.split(",")[1]) >= 50,
              Stored.as("high-scorers"))
          .toStream().to("high");
      users.mapValues(line -> line.split(",")[0],
              Stored.<String, String>as("user-countries").withValueSerde(Serdes.string()))
          .groupBy((user, country) -> new KeyValue<>(country, user),
              Grouped.with(Serdes.string(), Serdes.string()))
          .count(Stored.as("per-country"))
          .toStream().to("counts");
    }
  }

  /** toTable() after a map: no aggregate's store to be, and no name given. */
  public static final class UnnamedTable implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("in").mapValues(v -> v + "!").toTable().toStream().to("out");
    }
  }

  /** graph.table without a Stored. */
  public static final class NoStored implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>table("in", null).toStream().to("out");
    }
  }

  @Test
  void aTableHoldsEachKeysLatestValueAndPassesEveryChangeOnWithDeletesAsNull() {
    Random random = new Random(17);
    Map<String, String> model = new HashMap<>();
    List<Object> changes = new ArrayList<>();
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("users", Users.class, "users", "changes"), tmp)) {
      for (int i = 0; i < 2_000; i++) {
        String key = "u" + random.nextInt(40);
        String value = random.nextInt(5) == 0 ? null : "name" + random.nextInt(1_000);
        long time = 10_000 + i * 10L - random.nextInt(500); // out of order: a table takes order
        driver.pipe("users", key, value, time);
        if (value == null) {
          model.remove(key);
        } else {
          model.put(key, value);
        }
        changes.add(key + "=" + value);
      }
      assertThat(driver.outputs("changes")).extracting(o -> o.key() + "=" + o.value())
          .isEqualTo(changes);
      for (int u = 0; u < 40; u++) {
        assertThat(driver.<String, String>store("users").get("u" + u)).as("u" + u)
            .isEqualTo(model.get("u" + u));
      }
    }
  }

  @Test
  void aTablesFilterAndMapValuesAreTablesThatFollowItsRowsAsAModelDoes() {
    Random random = new Random(29);
    Map<String, String> model = new HashMap<>();
    List<String> high = new ArrayList<>();
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("derived", DerivedTables.class, "users", "high", "counts"), tmp)) {
      for (int i = 0; i < 2_000; i++) {
        String user = "u" + random.nextInt(40);
        String line = random.nextInt(6) == 0 ? null
            : "c" + random.nextInt(5) + "," + random.nextInt(100);
        driver.pipe("users", user, line, i);
        if (line == null) {
          model.remove(user);
        } else {
          model.put(user, line);
        }
        boolean passes = line != null && Long.parseLong(line.split(",")[1]) >= 50;
        high.add(user + "=" + (passes ? line : null)); // a row that fails leaves: null
      }
      assertThat(driver.outputs("high")).extracting(o -> o.key() + "=" + o.value())
          .isEqualTo(high);
      Map<String, Long> perCountry = new HashMap<>();
      for (int u = 0; u < 40; u++) {
        String line = model.get("u" + u);
        boolean passes = line != null && Long.parseLong(line.split(",")[1]) >= 50;
        assertThat(driver.<String, String>store("high-scorers").get("u" + u)).as("u" + u)
            .isEqualTo(passes ? line : null);
        assertThat(driver.<String, String>store("user-countries").get("u" + u)).as("u" + u)
            .isEqualTo(line == null ? null : line.split(",")[0]);
        if (line != null) {
          perCountry.merge(line.split(",")[0], 1L, Long::sum);
        }
      }
      for (int c = 0; c < 5; c++) {
        Long stored = driver.<String, Long>store("per-country").get("c" + c);
        assertThat(stored == null ? 0L : stored).as("c" + c) // (null: never any user)
            .isEqualTo(perCountry.getOrDefault("c" + c, 0L));
      }
    }
  }

  @Test
  void anAggregatesStoreIsATableOthersJoinWith() {
    Random random = new Random(23);
    Map<String, Long> counts = new HashMap<>();
    List<String> expected = new ArrayList<>();
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("counts", CountsAsTable.class, "clicks", "views", "out"), tmp)) {
      for (int i = 0; i < 1_000; i++) {
        String user = "u" + random.nextInt(20);
        if (random.nextBoolean()) {
          driver.pipe("clicks", user, "c", i);
          counts.merge(user, 1L, Long::sum);
        } else {
          driver.pipe("views", user, "v" + i, i);
          expected.add(user + "=v" + i + ":" + counts.get(user));
        }
      }
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .isEqualTo(expected);
    }
  }

  @Test
  void aReKeyedStreamsTableIsMadeAfterItsRepartition() {
    try (TaskTestDriver driver = DslDrivers.driver(
        DslDrivers.job("rekeyed", Rekeyed.class, "lines", "out"), tmp)) {
      for (String line : Arrays.asList("ada,GB", "grace,US", "edsger,NL", "barbara,US")) {
        driver.pipe("lines", null, line, 1);
      }
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("GB=ada", "US=grace", "NL=edsger", "US=barbara");
      assertThat(driver.<String, String>store("by-country").get("US")).isEqualTo("barbara");
    }
  }

  @Test
  void aTableWithoutAStoreNameIsRefusedNamingTheOperator() {
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("unnamed-table", UnnamedTable.class, "in", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("toTable() after in/mapValues: the store name of the table is "
            + "missing");
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("no-stored", NoStored.class, "in", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("table of in needs a store name");
  }
}
