package io.millrace.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValue;
import io.millrace.core.testing.Await;
import io.millrace.dsl.translate.DslJobTranslator;
import io.millrace.dsl.window.Windows;
import io.millrace.test.Output;
import io.millrace.test.TaskFailure;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mapAsync} on the test driver: each record's call completed by the test, out of order and
 * from several threads, against a plain-Java model; the bound on calls in flight and the order per
 * key held as the run loop holds them ({@code MapAsyncEndToEndTest} shows the loop); failures
 * named; pipelines it cannot run refused before a record is read.
 */
class MapAsyncTest {
  @TempDir Path tmp;

  /** The calls the pipeline has started, for the test to complete. */
  static final ConcurrentLinkedQueue<Pending> CALLS = new ConcurrentLinkedQueue<>();

  record Pending(String key, int value, CompletableFuture<Integer> result) {}

  /** A look-up per record, then a filter and a new value on the completing thread. */
  public static final class LookUp implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in")
          .filter((k, v) -> v % 5 != 0)
          .mapAsync((k, v) -> {
            CompletableFuture<Integer> result = new CompletableFuture<>();
            CALLS.add(new Pending(k, v, result));
            return result;
          }, 16)
          .filter((k, v) -> v % 2 == 0)
          .mapValues(v -> "v" + v)
          .to("out");
    }
  }

  private TaskTestDriver driver(Class<? extends StreamApplication> app) {
    return DslDrivers.driver(DslDrivers.job("async", app, "in", "out", "more"), tmp);
  }

  @Test
  void eachRecordGoesOnWithItsCallsValueWhateverOrderTheCallsCompleteIn() throws Exception {
    CALLS.clear();
    Random random = new Random(11);
    List<int[]> records = new ArrayList<>(); // key number, value, time
    for (int i = 0; i < 400; i++) {
      records.add(new int[] {random.nextInt(20), random.nextInt(1000), 1_000 + i});
    }
    Map<String, List<List<Object>>> model = new TreeMap<>();
    int called = (int) records.stream().filter(r -> r[1] % 5 != 0).count();
    try (TaskTestDriver driver = driver(LookUp.class)) {
      for (int[] r : records) {
        driver.pipe("in", "k" + r[0], r[1], r[2]);
        if (r[1] % 5 != 0 && (r[1] * 3) % 2 == 0) {
          model.computeIfAbsent("k" + r[0], k -> new ArrayList<>())
              .add(List.of("v" + r[1] * 3, (long) r[2]));
        }
      }
      assertThat(driver.outputs("out")).as("nothing before its call completes").isEmpty();
      // Rounds: the calls the driver has made so far, completed in a shuffled order from four
      // threads; then the driver takes the completions and makes the next ones.
      ExecutorService threads = Executors.newFixedThreadPool(4);
      int done = 0;
      while (done < called) {
        List<Pending> calls = new ArrayList<>(CALLS);
        CALLS.clear();
        assertThat(calls).as("calls in flight: at most the bound, one per key").isNotEmpty()
            .hasSizeLessThanOrEqualTo(16)
            .extracting(Pending::key).doesNotHaveDuplicates();
        Collections.shuffle(calls, random);
        CountDownLatch completed = new CountDownLatch(calls.size());
        for (Pending call : calls) {
          threads.execute(() -> {
            call.result.complete(call.value * 3);
            completed.countDown();
          });
        }
        Await.until(Await.DEADLINE, "the round's calls completed",
            () -> completed.getCount() == 0);
        done += calls.size();
        driver.takeCompletions();
      }
      threads.shutdown();
      assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      driver.awaitCalls(Duration.ofSeconds(30));
      Map<String, List<List<Object>>> out = new TreeMap<>();
      for (Output o : driver.outputs("out")) {
        out.computeIfAbsent((String) o.key(), k -> new ArrayList<>())
            .add(List.of(o.value(), o.timestamp()));
      }
      assertThat(out).as("each record with its own call's value and event time, each key's in "
          + "the order its records came").isEqualTo(model);
    }
  }

  /** A service that answers only when the test says: each call's future kept, in call order. */
  public static final class Slow implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in")
          .mapAsync((k, v) -> {
            CompletableFuture<Integer> result = new CompletableFuture<>();
            CALLS.add(new Pending(k, v, result));
            return result;
          }, 3)
          .to("out");
    }
  }

  private static Pending callFor(int value) {
    return CALLS.stream().filter(p -> p.value == value).findFirst().orElseThrow();
  }

  @Test
  void noMoreThanMaxInFlightCallsAreMadeAndTheNextRecordIsCalledOnceOneCompletes() {
    CALLS.clear();
    try (TaskTestDriver driver = driver(Slow.class)) {
      for (int i = 0; i < 4; i++) {
        driver.pipe("in", "k" + i, i, 1_000 + i);
      }
      assertThat(CALLS).as("a service that never answers gets maxInFlight=3 calls")
          .extracting(Pending::value).containsExactly(0, 1, 2);
      assertThat(driver.waiting()).isEqualTo(1);
      driver.advanceTime(Duration.ofSeconds(59)); // (a minute fails them: the call time-out)
      assertThat(CALLS).as("time alone, within the call time-out, frees no place").hasSize(3);

      callFor(1).result.complete(10);
      driver.takeCompletions();
      assertThat(CALLS).as("the fourth record, once one call completed")
          .extracting(Pending::value).containsExactly(0, 1, 2, 3);
      assertThat(driver.values("out")).containsExactly(10);
    }
  }

  @Test
  void aKeysSecondRecordIsCalledOnlyOnceItsFirstCompletedAndOtherKeysPassIt() {
    CALLS.clear();
    try (TaskTestDriver driver = driver(Slow.class)) {
      driver.pipe("in", "a", 1, 1_000);
      driver.pipe("in", "a", 2, 1_001);
      driver.pipe("in", "b", 3, 1_002);
      assertThat(CALLS).as("a's second waits for its first; b passes it")
          .extracting(Pending::value).containsExactly(1, 3);
      callFor(3).result.complete(30);
      driver.pipe("in", "b", 4, 1_003);
      callFor(4).result.complete(40);
      driver.takeCompletions();
      assertThat(CALLS).as("a's second is not called while its first is out")
          .extracting(Pending::value).containsExactly(1, 3, 4);

      callFor(1).result.complete(10); // the first of a completed last
      driver.takeCompletions();
      assertThat(CALLS).extracting(Pending::value).containsExactly(1, 3, 4, 2);
      callFor(2).result.complete(20);
      driver.awaitCalls(Duration.ofSeconds(30));
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .as("each key's results in the order its records came")
          .containsExactly("b=30", "b=40", "a=10", "a=20");
    }
  }

  @Test
  void aCallThatFailsFailsItsRecordNamingTheOperator() {
    CALLS.clear();
    try (TaskTestDriver driver = driver(LookUp.class)) {
      driver.pipe("in", "k", 2, 1_000);
      driver.pipe("in", "k", 4, 1_001);
      callFor(2).result.complete(2);
      driver.takeCompletions(); // the key's next record is called once its first completed
      callFor(4).result.completeExceptionally(new IllegalStateException("service down"));
      assertThatThrownBy(() -> driver.awaitCalls(Duration.ofSeconds(30)))
          .isInstanceOf(TaskFailure.class)
          .hasMessageContaining("mapAsync at in/filter/mapAsync: failed on record (key k, value 4)")
          .hasMessageContaining("service down");
      assertThat(driver.outputs("out")).extracting(Output::value).containsExactly("v2");
    }
  }

  /** A mapper that throws instead of returning a failed stage. */
  public static final class Throwing implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in")
          .<Integer>mapAsync((k, v) -> {
            throw new IllegalArgumentException("no " + v);
          }, 4)
          .to("out");
    }
  }

  @Test
  void aMapperThatThrowsFailsItsRecordNamingTheOperator() {
    try (TaskTestDriver driver = driver(Throwing.class)) {
      assertThatThrownBy(() -> {
        driver.pipe("in", "k", 7, 1_000);
        driver.awaitCalls(Duration.ofSeconds(30));
      }).isInstanceOf(TaskFailure.class)
          .hasMessageContaining("mapAsync at in/mapAsync: failed on record (key k, value 7)")
          .hasMessageContaining("no 7");
    }
  }

  @Test
  void onlyAPipelineWithAMapAsyncRunsOnTheAsyncTaskBoundedAndOrderedByKey() {
    DslJobTranslator translator = new DslJobTranslator();
    ClassLoader loader = getClass().getClassLoader();
    Map<String, String> async = translator.translate(JobConfig.of(
        DslDrivers.job("async", LookUp.class, "in", "out")), loader).config();
    assertThat(async).containsEntry("task.class", "io.millrace.dsl.runtime.DslAsyncTask")
        .containsEntry("task.max.concurrency", "16")
        .containsEntry("task.ordering", "key");
    Map<String, String> sync = translator.translate(JobConfig.of(
        DslDrivers.job("sync", StatelessOperatorsTest.Everything.class, "numbers", "others")),
        loader).config();
    assertThat(sync).containsEntry("task.class", "io.millrace.dsl.runtime.DslTask")
        .doesNotContainKey("task.max.concurrency").doesNotContainKey("task.ordering");
    Map<String, String> contradicting = DslDrivers.job("async", LookUp.class, "in", "out");
    contradicting.put("task.max.concurrency", "3");
    assertThatThrownBy(() -> translator.translate(JobConfig.of(contradicting), loader))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.max.concurrency=3")
        .hasMessageContaining("mapAsync at in/filter/mapAsync states 16");
  }

  /** mapAsync after a re-key: its order per key would not be the records' new key's. */
  public static final class AfterRekey implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in").selectKey((k, v) -> "x" + v)
          .mapAsync((k, v) -> CompletableFuture.completedFuture(v), 4).to("out");
    }
  }

  /** An aggregate straight after mapAsync: it would run on the completing thread. */
  public static final class CountAfter implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in")
          .mapAsync((k, v) -> CompletableFuture.completedFuture(v), 4)
          .groupByKey().count(Stored.as("counts")).to("out");
    }
  }

  /** Two of them: a record could have two calls in flight. */
  public static final class Two implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, Integer> in = graph.stream("in");
      in.mapAsync((k, v) -> CompletableFuture.completedFuture(v), 4).to("out");
      in.mapAsync((k, v) -> CompletableFuture.completedFuture(v), 4).to("more");
    }
  }

  /** A window in the same pipeline. */
  public static final class Windowed implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, Integer> in = graph.stream("in");
      in.mapAsync((k, v) -> CompletableFuture.completedFuture(v), 4).to("out");
      in.groupByKey().windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ZERO))
          .count(Stored.as("per-minute")).to("more");
    }
  }

  /** A count of its results after a repartition: allowed. */
  public static final class CountRepartitioned implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, Integer>stream("in")
          .mapAsync((k, v) -> CompletableFuture.completedFuture(v), 4)
          .groupBy((k, v) -> k).count(Stored.as("counts")).to("out");
    }
  }

  @Test
  void pipelinesAMapAsyncCannotKeepItsPromisesInAreRefusedNamingTheOperator() {
    assertThatThrownBy(() -> driver(AfterRekey.class)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("mapAsync at in/selectKey/mapAsync keeps order per key")
        .hasMessageContaining("selectKey at in/selectKey is before it");
    assertThatThrownBy(() -> driver(CountAfter.class)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("count at in/mapAsync/count:counts comes after mapAsync at "
            + "in/mapAsync")
        .hasMessageContaining("groupBy((k, v) -> k)");
    assertThatThrownBy(() -> driver(Two.class)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("one mapAsync at most");
    assertThatThrownBy(() -> driver(Windowed.class)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("windowed count at in/windowed-count:per-minute waits for the "
            + "watermark");
    assertThatThrownBy(() -> graphOf(g -> g.<String, Integer>stream("in")
        .mapAsync((k, v) -> CompletableFuture.completedFuture(v), 0)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("mapAsync at in: maxInFlight must be 1 to 100000");
    try (TaskTestDriver driver = driver(CountRepartitioned.class)) {
      driver.pipe("in", "a", 1, 1_000);
      driver.pipe("in", "a", 2, 1_001);
      driver.awaitCalls(Duration.ofSeconds(30));
      assertThat(driver.lastValues("out")).containsEntry("a", 2L);
    }
  }

  private static Object graphOf(java.util.function.Consumer<StreamGraph> describe) {
    StreamGraph graph = new StreamGraph();
    describe.accept(graph);
    return graph.plan();
  }

  static KeyValue<String, Integer> kv(String k, int v) {
    return new KeyValue<>(k, v);
  }
}
