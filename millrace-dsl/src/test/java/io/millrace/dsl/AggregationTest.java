package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.serde.Serdes;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * count, reduce and aggregate per key against a plain-Java model, in RocksDB stores through the
 * test driver; the store name required where state is made.
 */
class AggregationTest {
  @TempDir Path tmp;

  /** Three aggregates of one stream. */
  public static final class ThreeAggregates implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, Long> amounts = graph.stream("amounts");
      amounts.groupByKey().count(Stored.as("counts")).to("counts-out");
      amounts.groupByKey()
          .reduce(Stored.<String, Long>as("maxima").withValueSerde(Serdes.longs()), Math::max)
          .to("maxima-out");
      amounts.groupByKey()
          .aggregate(Stored.<String, String>as("digits").withValueSerde(Serdes.string()),
              () -> "", (k, v, a) -> a + (v % 10))
          .to("digits-out");
    }
  }

  /** A count whose store is not named. */
  public static final class UnnamedCount implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("in").map((k, v) -> new KeyValue<>(v, v)).groupByKey()
          .count(Stored.as(" ")).to("out");
    }
  }

  /** A count with no Stored at all. */
  public static final class NoStored implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("in").groupByKey().count(null).to("out");
    }
  }

  @Test
  void countReduceAndAggregateGiveWhatTheirModelsGiveAndKeepItInTheirStores() {
    Random random = new Random(3);
    Map<String, Long> counts = new HashMap<>();
    Map<String, Long> maxima = new HashMap<>();
    Map<String, String> digits = new HashMap<>();
    List<Object> countUpdates = new ArrayList<>();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("aggregates",
        ThreeAggregates.class, "amounts", "counts-out", "maxima-out", "digits-out"), tmp)) {
      for (int i = 0; i < 1_000; i++) {
        String key = "user-" + random.nextInt(30);
        long amount = random.nextInt(1_000);
        driver.pipe("amounts", key, amount, i);
        countUpdates.add(counts.merge(key, 1L, Long::sum));
        maxima.merge(key, amount, Math::max);
        digits.merge(key, Long.toString(amount % 10), String::concat);
      }
      assertThat(driver.values("counts-out")).as("every update passed on")
          .isEqualTo(countUpdates);
      assertThat(driver.lastValues("counts-out")).isEqualTo(new HashMap<Object, Object>(counts));
      assertThat(driver.lastValues("maxima-out")).isEqualTo(new HashMap<Object, Object>(maxima));
      assertThat(driver.lastValues("digits-out")).isEqualTo(new HashMap<Object, Object>(digits));
      counts.forEach((key, count) ->
          assertThat(driver.<String, Long>store("counts").get(key)).isEqualTo(count));
    }
  }

  @Test
  void aStoreWithoutANameIsRefusedNamingTheOperator() {
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("unnamed", UnnamedCount.class, "in", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("the store name of count after in/map is missing");
    assertThatThrownBy(() -> DslDrivers.driver(
        DslDrivers.job("nostored", NoStored.class, "in", "out"), tmp))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("count after in needs a store name");
  }
}
