package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.store.KeyValue;
import io.millrace.test.Output;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each stateless operator against a plain-Java model of what it should give, on generated
 * records, through the test driver (the job translated as millrace run translates it).
 */
class StatelessOperatorsTest {
  @TempDir Path tmp;

  /** Every stateless operator once, each branch to its own sink. */
  public static final class Everything implements StreamApplication {
    static final List<String> PEEKED = new ArrayList<>();

    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, Integer> numbers = graph.stream("numbers");
      numbers.map((k, v) -> new KeyValue<>(k + "!", v * 2)).to("mapped");
      numbers.mapValues(v -> "v" + v).to("valued");
      numbers.filter((k, v) -> v % 3 == 0).to("filtered");
      numbers.flatMap((k, v) -> {
        List<KeyValue<String, Integer>> out = new ArrayList<>();
        for (int i = 0; i < v % 3; i++) {
          out.add(new KeyValue<>(k + "#" + i, v));
        }
        return out;
      }).to("flat");
      numbers.peek((k, v) -> PEEKED.add(k)).selectKey((k, v) -> "k" + (v % 4)).to("rekeyed");
      List<MessageStream<String, Integer>> parts = numbers.split(
          (k, v) -> v < 10, (k, v) -> v < 50);
      parts.get(0).to("small");
      parts.get(1).to("medium");
      MessageStream<String, Integer> others = graph.stream("others");
      parts.get(0).merge(others).to("merged");
    }
  }

  private record Rec(String key, int value, long time) {}

  @Test
  void eachStatelessOperatorGivesWhatItsPlainJavaModelGives() {
    Random random = new Random(7);
    List<Rec> numbers = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      numbers.add(new Rec("key-" + random.nextInt(20), random.nextInt(100),
          1_000 + random.nextInt(5_000))); // timestamps out of order
    }
    Everything.PEEKED.clear();
    try (TaskTestDriver driver = DslDrivers.driver(DslDrivers.job("stateless", Everything.class,
        "numbers", "others", "mapped", "valued", "filtered", "flat", "rekeyed", "small", "medium",
        "merged"), tmp)) {
      List<Object> merged = new ArrayList<>();
      for (int i = 0; i < numbers.size(); i++) {
        Rec r = numbers.get(i);
        driver.pipe("numbers", r.key, r.value, r.time);
        if (r.value < 10) {
          merged.add(r.value);
        }
        if (i % 50 == 0) {
          driver.pipe("others", "other", -i, r.time);
          merged.add(-i);
        }
      }
      List<Object> mapped = new ArrayList<>();
      List<Object> valued = new ArrayList<>();
      List<Object> filtered = new ArrayList<>();
      List<Object> flatKeys = new ArrayList<>();
      List<Object> rekeyed = new ArrayList<>();
      List<Object> small = new ArrayList<>();
      List<Object> medium = new ArrayList<>();
      List<Object> peeked = new ArrayList<>();
      for (Rec r : numbers) {
        mapped.add(List.of(r.key + "!", r.value * 2, r.time));
        valued.add("v" + r.value);
        if (r.value % 3 == 0) {
          filtered.add(r.value);
        }
        for (int i = 0; i < r.value % 3; i++) {
          flatKeys.add(r.key + "#" + i);
        }
        rekeyed.add("k" + (r.value % 4));
        peeked.add(r.key);
        if (r.value < 10) {
          small.add(r.value);
        } else if (r.value < 50) {
          medium.add(r.value);
        }
      }
      assertThat(driver.outputs("mapped")).extracting(o -> List.of(o.key(), o.value(),
          o.timestamp())).as("map keeps the event time").isEqualTo(mapped);
      assertThat(driver.values("valued")).isEqualTo(valued);
      assertThat(driver.values("filtered")).isEqualTo(filtered);
      assertThat(driver.outputs("flat")).extracting(Output::key).isEqualTo(flatKeys);
      assertThat(driver.outputs("rekeyed")).extracting(Output::key).isEqualTo(rekeyed);
      assertThat(Everything.PEEKED).isEqualTo(peeked);
      assertThat(driver.values("small")).as("the first branch that holds").isEqualTo(small);
      assertThat(driver.values("medium")).isEqualTo(medium);
      assertThat(driver.values("merged")).as("both streams, as they came").isEqualTo(merged);
    }
  }
}
