package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.system.memory.MemoryStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One task reading two inputs: keys shared across its partitions, and a slow partition. */
class AsyncMultiInputTest {
  @TempDir Path tmp;
  private ScheduledExecutorService completer;
  private AsyncJob job;

  static volatile ScheduledExecutorService pool;
  static volatile Random latencies;
  /** Hold the message of stream "in" at this offset until the test completes it. */
  static volatile long holdInAt = -1;
  static volatile TaskCallback held;
  static volatile Collector heldCollector;
  static final Map<String, AtomicInteger> inFlightByKey = new ConcurrentHashMap<>();
  static final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
  /** Per "stream/key": offsets in completion order. */
  static final Map<String, List<Long>> completedByKey = new ConcurrentHashMap<>();
  static final List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
  static final Map<String, List<Long>> delivered = new ConcurrentHashMap<>();

  public static final class TwoInputTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      processed.computeIfAbsent(e.stream() + ":" + e.offset(), k -> new AtomicInteger())
          .incrementAndGet();
      delivered.computeIfAbsent(e.stream(), k -> Collections.synchronizedList(new ArrayList<>()))
          .add(e.offset());
      String key = String.valueOf(e.key());
      if (inFlightByKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
        overlaps.add(key + " at " + e);
      }
      if (e.stream().equals("in") && e.offset() == holdInAt) {
        heldCollector = collector;
        held = callback;
        inFlightByKey.get(key).decrementAndGet(); // held forever as far as keys go (none order)
        return;
      }
      long delay;
      synchronized (latencies) {
        delay = latencies.nextInt(2_000);
      }
      pool.schedule(() -> {
        collector.send("out", 0, e.key(), e.stream() + ":" + e.offset());
        completedByKey.computeIfAbsent(e.stream() + "/" + key,
            k -> Collections.synchronizedList(new ArrayList<>())).add(e.offset());
        inFlightByKey.get(key).decrementAndGet();
        callback.complete();
      }, delay, TimeUnit.MICROSECONDS);
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newScheduledThreadPool(2);
    pool = completer;
    latencies = new Random(42);
    holdInAt = -1;
    held = null;
    heldCollector = null;
    inFlightByKey.clear();
    processed.clear();
    completedByKey.clear();
    overlaps.clear();
    delivered.clear();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
  }

  private static List<Long> range(long to) {
    return LongStream.range(0, to).boxed().collect(Collectors.toList());
  }

  @Test
  void keyOrderHoldsAcrossTheTwoInputsOfATaskInBatchesOfFour() throws Exception {
    int n = 200;
    job = new AsyncJob(tmp, TwoInputTask.class, 1)
        .set("task.ordering", "key")
        .set("task.max.concurrency", 8)
        .set("task.consumer.batch.size", 4)
        .fill(n, (p, i) -> "k" + (i % 6));
    MemoryStream second = job.addInput("in2", 1);
    for (int i = 0; i < n; i++) {
      second.append(0, "k" + (i % 5), "x" + i);
    }
    second.seal();
    job.seal();

    job.runOk();

    assertThat(overlaps).as("one key never overlaps, whichever input it came from").isEmpty();
    assertThat(processed).hasSize(2 * n);
    assertThat(processed.values()).allSatisfy(c -> assertThat(c.get()).isEqualTo(1));
    completedByKey.forEach((key, offsets) -> assertThat(offsets).as(key).isSorted());
    assertThat(job.output(0)).hasSize(2 * n);
    assertThat(job.checkpointOf("in", 0)).isEqualTo(n - 1L);
    assertThat(job.checkpointOf("in2", 0)).isEqualTo(n - 1L);
  }

  @Test
  void aHeldMessageHoldsBackOnlyItsOwnPartitionNotTheTasksOtherInput() throws Exception {
    // Concurrency 2: "in" fills its 64-slot ring behind offset 3 and stops; "in2" goes on.
    int n = 300;
    holdInAt = 3;
    job = new AsyncJob(tmp, TwoInputTask.class, 1)
        .set("task.ordering", "none")
        .set("task.max.concurrency", 2)
        .fill(n, (p, i) -> null);
    MemoryStream second = job.addInput("in2", 1);
    for (int i = 0; i < n; i++) {
      second.append(0, null, "x" + i);
    }
    second.seal();
    job.seal();
    LocalRunner runner = job.start();
    try {
      AsyncJob.awaitCondition("all of in2 completed",
          () -> completedByKey.getOrDefault("in2/null", List.of()).size() == n);
      assertThat(delivered.get("in")).as("in: 0..2, then the 64 slots from the held 3")
          .isEqualTo(range(67));
      assertThat(runner.failure()).isNull();
      heldCollector.send("out", 0, null, "in:3");
      held.complete();
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);
    assertThat(runner.failure()).isNull();
    assertThat(delivered.get("in")).isEqualTo(range(n));
    assertThat(job.output(0)).hasSize(2 * n);
    assertThat(job.checkpointOf("in", 0)).isEqualTo(n - 1L);
    assertThat(job.checkpointOf("in2", 0)).isEqualTo(n - 1L);
  }
}
