package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.test.TaskTestDriver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operators that repartition the same records share one intermediate stream, named by the first
 * of them (or by an explicit {@code repartition}); serdes that write differently keep theirs.
 */
class SharedRepartitionTest {
  @TempDir Path tmp;

  /** Views keyed by page, re-keyed by user: a count and a reduce per user. */
  public static final class TwoAggregatesOfOneRekey implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, Long> byUser = graph.<String, String>stream("views")
          .map((page, user) -> new KeyValue<>(user, (long) page.length()));
      byUser.groupByKey().count(Stored.as("views-per-user")).to("counts");
      byUser.groupByKey()
          .reduce(Stored.<String, Long>as("longest-page").withValueSerde(Serdes.longs()),
              Math::max)
          .to("longest");
    }
  }

  /** The same, the repartition named by the application, a table join beside the aggregates. */
  public static final class NamedRepartition implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      Table<String, String> users = graph.table("users",
          Stored.<String, String>as("users").withValueSerde(Serdes.string()));
      MessageStream<String, Long> byUser = graph.<String, String>stream("views")
          .map((page, user) -> new KeyValue<String, Long>(user, (long) page.length()))
          .repartition("by-user");
      byUser.groupByKey().count(Stored.as("views-per-user")).to("counts");
      byUser.join(users, (length, country) -> country + ":" + length, Joined.as("with-country"))
          .to("enriched");
    }
  }

  /** Two counts of one re-key whose repartitions write their values differently. */
  public static final class UnlikeSerdes implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> byUser = graph.<String, String>stream("views")
          .map((page, user) -> new KeyValue<>(user, page));
      byUser.groupByKey(Grouped.with(new StringSerde(), new StringSerde()))
          .count(Stored.as("plain")).to("plain-out");
      byUser.groupByKey(Grouped.with(new StringSerde(), new UpperCaseSerde()))
          .count(Stored.as("shouted")).to("shouted-out");
    }
  }

  /** A repartition with a name that cannot name a stream. */
  public static final class BadName implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").repartition("by user").to("out");
    }
  }

  @Test
  void twoAggregatesOfOneRekeyShareTheFirstOnesRepartitionAndGiveTheirModelsResults() {
    StreamGraph graph = describe(new TwoAggregatesOfOneRekey());
    assertThat(intermediates(graph)).containsExactly("views-per-user-repartition");

    Random random = new Random(5);
    Map<Object, Object> counts = new HashMap<>();
    Map<Object, Object> longest = new HashMap<>();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("shared",
        TwoAggregatesOfOneRekey.class, "views", "counts", "longest"), tmp)) {
      for (int i = 0; i < 600; i++) {
        String page = "/page/" + "x".repeat(random.nextInt(20));
        String user = "user-" + random.nextInt(25);
        driver.pipe("views", page, user, i);
        counts.merge(user, 1L, (a, b) -> (Long) a + (Long) b);
        longest.merge(user, (long) page.length(), (a, b) -> Math.max((Long) a, (Long) b));
      }
      assertThat(driver.lastValues("counts")).isEqualTo(counts);
      assertThat(driver.lastValues("longest")).isEqualTo(longest);
      assertThat(driver.outputs("views-per-user-repartition")).as("each view written once")
          .hasSize(600);
    }
  }

  @Test
  void aNamedRepartitionIsTheOneStreamItsAggregateAndJoinRead() {
    StreamGraph graph = describe(new NamedRepartition());
    assertThat(intermediates(graph)).containsExactly("by-user-repartition");
    assertThat(graph.plan().copartitionGroups().values())
        .as("the join still checks its inputs are co-partitioned")
        .anySatisfy(group -> assertThat(group).contains("by-user-repartition", "users"));

    Map<Object, Object> counts = new HashMap<>();
    List<Object> enriched = new ArrayList<>();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("named", NamedRepartition.class,
        "views", "users", "counts", "enriched"), tmp)) {
      driver.pipe("users", "ann", "fr", 0);
      driver.pipe("users", "bob", "de", 0);
      String[][] views = {{"/a", "ann"}, {"/bb", "bob"}, {"/ccc", "ann"}, {"/d", "eve"}};
      for (int i = 0; i < views.length; i++) {
        driver.pipe("views", views[i][0], views[i][1], i + 1);
        counts.merge(views[i][1], 1L, (a, b) -> (Long) a + (Long) b);
      }
      assertThat(driver.lastValues("counts")).isEqualTo(counts);
      assertThat(driver.values("enriched")).as("eve has no user record: an inner join drops her")
          .containsExactly("fr:2", "de:3", "fr:4");
      enriched.addAll(driver.outputs("by-user-repartition"));
      assertThat(enriched).hasSize(4);
    }
  }

  @Test
  void repartitionsWhoseSerdesWriteDifferentlyKeepAStreamEach() {
    assertThat(intermediates(describe(new UnlikeSerdes())))
        .containsExactly("plain-repartition", "shouted-repartition");
  }

  @Test
  void aRepartitionNamedBadlyIsRefusedNamingIt() {
    assertThatThrownBy(() -> describe(new BadName())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad name 'by user'")
        .hasMessageContaining("the name of the repartition after");
  }

  @Test
  void serdesWriteAlikeWhenTheSameEqualOrOfOneClassWithoutStateOfTheirOwn() {
    Serde<String> one = new StringSerde();
    assertThat(StreamGraph.writeAlike(one, one)).isTrue();
    assertThat(StreamGraph.writeAlike(one, new StringSerde())).isTrue();
    assertThat(StreamGraph.writeAlike(null, null)).as("both absent: memory streams").isTrue();
    assertThat(StreamGraph.writeAlike(one, null)).isFalse();
    assertThat(StreamGraph.writeAlike(one, new UpperCaseSerde())).isFalse();
    assertThat(StreamGraph.writeAlike(new Prefixed("a"), new Prefixed("b")))
        .as("one class, state of its own, not equal").isFalse();
    assertThat(StreamGraph.writeAlike(new Prefixed("a"), new Prefixed("a")))
        .as("one class, equal").isTrue();
  }

  private static StreamGraph describe(StreamApplication app) {
    StreamGraph graph = new StreamGraph();
    app.describe(graph);
    return graph;
  }

  /** The intermediate streams of the plan: the sources that are repartitions. */
  private static List<String> intermediates(StreamGraph graph) {
    List<String> ids = new ArrayList<>();
    graph.plan().sources().forEach((id, node) -> {
      if (graph.plan().outputs().contains(id)) {
        ids.add(id);
      }
    });
    return ids;
  }

  /** Writes strings upper-cased: not what a StringSerde writes. */
  public static final class UpperCaseSerde implements Serde<String> {
    @Override
    public byte[] toBytes(String value) {
      return value.toUpperCase().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String fromBytes(byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /** A serde with state of its own, equal when its prefix is. */
  record Prefixed(String prefix) implements Serde<String> {
    @Override
    public byte[] toBytes(String value) {
      return (prefix + value).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String fromBytes(byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8).substring(prefix.length());
    }
  }
}
