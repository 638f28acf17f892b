package io.millrace.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.config.ConfigException;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import io.millrace.core.async.Watermark;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An async task under the driver gets its records as the run loop's dispatcher hands them out:
 * no more than {@code task.max.concurrency} calls in flight, one call at a time per key under
 * {@code task.ordering=key} (other keys passing a slow one), whatever order the test completes
 * the calls in; bad settings refused naming the key.
 */
class AsyncBoundsTest {
  /** Keeps every call for the test to complete; completing one sends its value on. */
  public static class HeldTask implements AsyncStreamTask {
    static final List<Pending> CALLS = new ArrayList<>();

    @Override
    public void processAsync(Envelope e, Collector out, TaskCoordinator c, TaskCallback callback) {
      synchronized (CALLS) {
        CALLS.add(new Pending(e, out, callback));
      }
    }
  }

  record Pending(Envelope envelope, Collector out, TaskCallback callback) {
    void complete() {
      out.send("out", envelope.key(), envelope.value());
      callback.complete();
    }

    String value() {
      return (String) envelope.value();
    }
  }

  @BeforeEach
  void clear() {
    synchronized (HeldTask.CALLS) {
      HeldTask.CALLS.clear();
    }
  }

  private static List<Pending> calls() {
    synchronized (HeldTask.CALLS) {
      return List.copyOf(HeldTask.CALLS);
    }
  }

  private static List<String> called() {
    return calls().stream().map(Pending::value).toList();
  }

  private static Pending call(String value) {
    return calls().stream().filter(p -> p.value().equals(value)).findFirst().orElseThrow();
  }

  private static TaskTestDriver driver(String concurrency, String ordering) {
    TaskTestDriver.Builder b = TaskTestDriver.forTask(HeldTask.class).input("in").output("out")
        .set("task.max.concurrency", concurrency);
    if (ordering != null) {
      b.set("task.ordering", ordering);
    }
    return b.build();
  }

  @Test
  void noMoreThanTheBoundIsCalledAndTheNextRecordRunsOnceOneCompletes() {
    try (TaskTestDriver driver = driver("3", null)) {
      for (int i = 0; i < 5; i++) {
        driver.pipe("in", "k" + i, "r" + i);
      }
      assertThat(called()).as("a service that never answers gets the bound")
          .containsExactly("r0", "r1", "r2");
      assertThat(driver.inFlight()).isEqualTo(3);
      assertThat(driver.waiting()).isEqualTo(2);
      assertThat(driver.takeCompletions()).isZero();
      assertThat(called()).hasSize(3);

      call("r1").complete(); // out of order: the oldest is still out
      assertThat(called()).as("nothing is handed over until the driver takes the completion")
          .hasSize(3);
      assertThat(driver.takeCompletions()).isEqualTo(1);
      assertThat(called()).containsExactly("r0", "r1", "r2", "r3");
      assertThat(driver.waiting()).isEqualTo(1);
      assertThat(driver.values("out")).containsExactly("r1");

      call("r3").complete();
      call("r0").complete();
      driver.pipe("in", "k5", "r5"); // a pipe takes the completions first, as a cycle does
      assertThat(called()).containsExactly("r0", "r1", "r2", "r3", "r4", "r5");
      assertThat(driver.inFlight()).isEqualTo(3);
      assertThat(driver.waiting()).isZero();
      call("r5").complete();
      call("r2").complete();
      call("r4").complete();
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.values("out")).as("in the order the calls completed, as the loop sends")
          .containsExactly("r1", "r3", "r0", "r5", "r2", "r4");
    }
  }

  @Test
  void aCallWithNoCallbackWithinTheTimeOutOnTheDriversClockFailsAndALateOneIsIgnored() {
    TaskTestDriver driver = TaskTestDriver.forTask(HeldTask.class).input("in").output("out")
        .set("task.max.concurrency", "1").set("task.callback.timeout.ms", "5000").build();
    try (driver) {
      driver.pipe("in", "k0", "r0");
      driver.pipe("in", "k1", "r1");
      assertThat(called()).containsExactly("r0");
      driver.advanceTime(Duration.ofMillis(4_999));
      assertThat(driver.inFlight()).as("not timed out yet").isEqualTo(1);
      assertThatThrownBy(() -> driver.advanceTime(Duration.ofMillis(1)))
          .isInstanceOf(TaskFailure.class).hasMessageContaining("in/0@0") // r0, by offset
          .hasMessageContaining("task.callback.timeout.ms=5000");
      assertThat(called()).as("its place goes to the next record").containsExactly("r0", "r1");
      call("r0").complete(); // too late: ignored, its output too
      call("r1").complete();
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.values("out")).containsExactly("r1");
    }
  }

  @Test
  void aKeysNextRecordWaitsForItsCallWhileOtherKeysPassIt() {
    try (TaskTestDriver driver = driver("4", "key")) {
      driver.pipe("in", "a", "a1");
      driver.pipe("in", "a", "a2");
      driver.pipe("in", "b", "b1");
      assertThat(called()).as("a2 waits for a1; b1 passes it").containsExactly("a1", "b1");
      assertThat(driver.waiting()).isEqualTo(1);

      call("b1").complete();
      driver.pipe("in", "b", "b2");
      driver.pipe("in", "c", "c1");
      assertThat(called()).as("other keys go on while a1 is slow")
          .containsExactly("a1", "b1", "b2", "c1");
      call("b2").complete();
      call("c1").complete();
      driver.takeCompletions();
      assertThat(called()).as("a2 still waits: a1 has not completed").doesNotContain("a2");

      call("a1").complete();
      assertThat(driver.takeCompletions()).isEqualTo(1);
      assertThat(called()).containsExactly("a1", "b1", "b2", "c1", "a2");
      call("a2").complete();
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.values("out")).containsExactly("b1", "b2", "c1", "a1", "a2");
    }
  }

  @Test
  void heldCallsCountInFlightUntilTheTestReleasesThem() throws Exception {
    ExecutorService service = Executors.newFixedThreadPool(2);
    try (TaskTestDriver driver = TaskTestDriver.forTask(HeldTask.class).input("in")
        .output("out").set("task.max.concurrency", "2").holdCalls().build()) {
      driver.pipe("in", "a", "r0");
      driver.pipe("in", "b", "r1");
      driver.pipe("in", "c", "r2");
      for (Pending p : calls()) {
        service.execute(p::complete); // the task completes both, on its own threads
      }
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.heldCalls()).hasSize(2).allMatch(TaskTestDriver.Call::completedByTask);
      assertThat(called()).as("completed but held: still in flight for the bound")
          .containsExactly("r0", "r1");
      assertThat(driver.waiting()).isEqualTo(1);

      driver.heldCalls().get(1).release();
      assertThat(called()).as("a release frees its place").containsExactly("r0", "r1", "r2");
      assertThat(driver.values("out")).containsExactly("r1");
    } finally {
      service.shutdown();
      assertThat(service.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aKeyHoldsBackNoMoreRecordsThanTheLoopsLookAhead() {
    int lookAhead = AsyncSettings.KEY_LOOKAHEAD; // x task.max.concurrency=1
    try (TaskTestDriver driver = driver("1", "key")) {
      for (int i = 0; i <= lookAhead; i++) {
        driver.pipe("in", "a", "a" + i);
      }
      driver.pipe("in", "b", "b0");
      assertThat(called()).as("a0 in flight, " + lookAhead + " held back behind it: the task is "
          + "fed no more, as the loop stops choosing its partitions").containsExactly("a0");
      assertThat(driver.waiting()).isEqualTo(lookAhead + 1);
      call("a0").complete();
      driver.takeCompletions();
      assertThat(called()).as("a1 goes on at once; b0 waits for the place a1 took")
          .containsExactly("a0", "a1");
    }
  }

  @Test
  void anInputFarAheadOfASlowCallIsFedNoMoreUntilItCompletes() {
    // The loop's ring for task.max.concurrency=2, as many slots as it really has.
    Watermark slots = new Watermark(new AsyncSettings(2, Ordering.KEY, 1, 0, false)
        .ringCapacity());
    int ring = 0;
    while (!slots.isFull()) {
      slots.add(ring++);
    }
    try (TaskTestDriver driver = driver("2", "key")) {
      driver.pipe("in", "slow", "s");
      for (int i = 0; i < ring + 5; i++) {
        driver.pipe("in", "k" + i, "f" + i);
        if (called().contains("f" + i)) {
          call("f" + i).complete(); // each fast call done before the next is piped
        }
      }
      assertThat(called()).as("the input's ring holds the slow call and those completed after "
          + "it: full, the input waits with a place free").hasSize(ring);
      assertThat(driver.inFlight()).isEqualTo(1);
      assertThat(driver.waiting()).isEqualTo(6);
      call("s").complete();
      driver.takeCompletions();
      assertThat(called()).as("the slow call done, the input goes on up to the bound")
          .hasSize(ring + 2);
    }
  }

  /**
   * Generated records of a few keys, and calls completed in an order the test draws: at every
   * step the calls in flight are within the bound, never two of a key, and as many as the bound
   * allows; at the end every record's value came out once, each key's in the order piped.
   */
  @Test
  void underAnyCompletionOrderTheBoundAndEachKeysOrderHold() {
    Random random = new Random(31);
    int bound = 3;
    Map<Object, List<Object>> model = new LinkedHashMap<>();
    Set<String> completed = new HashSet<>();
    try (TaskTestDriver driver = driver(Integer.toString(bound), "key")) {
      int n = 0;
      while (n < 300 || completed.size() < n) {
        List<Pending> open = calls().stream()
            .filter(p -> !completed.contains(p.value())).toList();
        if (n < 300 && (open.isEmpty() || driver.waiting() < 12 && random.nextInt(3) > 0)) {
          String key = "k" + random.nextInt(5);
          String value = key + "#" + n++;
          driver.pipe("in", key, value);
          model.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        } else {
          Pending p = open.get(random.nextInt(open.size()));
          completed.add(p.value());
          p.complete();
          driver.takeCompletions();
        }
        List<Pending> inFlight = calls().stream()
            .filter(p -> !completed.contains(p.value())).toList();
        assertThat(inFlight).as("calls in flight").hasSizeLessThanOrEqualTo(bound);
        Set<Object> busy = new HashSet<>();
        for (Pending p : inFlight) {
          assertThat(busy.add(p.envelope().key())).as("two calls of " + p.envelope().key())
              .isTrue();
        }
        if (inFlight.size() < bound) {
          Set<String> handed = new HashSet<>(called()); // what is not: its key is busy
          model.values().stream().flatMap(List::stream).map(v -> (String) v)
              .filter(v -> !handed.contains(v))
              .forEach(v -> assertThat(busy).as(v + " waits with a place free")
                  .contains(v.substring(0, v.indexOf('#'))));
        }
      }
      driver.awaitCalls(Duration.ofSeconds(10));
      Map<Object, List<Object>> out = new LinkedHashMap<>();
      for (Output o : driver.outputs("out")) {
        out.computeIfAbsent(o.key(), k -> new ArrayList<>()).add(o.value());
      }
      assertThat(out).as("each key's values once, in the order piped")
          .containsExactlyInAnyOrderEntriesOf(model);
    }
  }

  @Test
  void badAsyncSettingsAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> driver("0", null)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.max.concurrency").hasMessageContaining("'0'");
    assertThatThrownBy(() -> driver("many", null)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.max.concurrency").hasMessageContaining("'many'");
    assertThatThrownBy(() -> driver("200000", null)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.max.concurrency").hasMessageContaining("1 to 100000");
    assertThatThrownBy(() -> driver("2", "sorted")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.ordering").hasMessageContaining("'sorted'")
        .hasMessageContaining("partition | key | none");
  }

  @Test
  void aWaitThatTimesOutSaysWhatIsWaiting() {
    try (TaskTestDriver driver = driver("1", "key")) {
      driver.pipe("in", "a", "a1");
      driver.pipe("in", "b", "b1");
      assertThatThrownBy(() -> driver.awaitCalls(Duration.ofMillis(1)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("1 async call(s) not completed by the task")
          .hasMessageContaining("1 record(s) wait for them (task.max.concurrency=1, "
              + "task.ordering=key)");
    }
  }
}
