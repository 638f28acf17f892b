package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code task.ordering} as properties over random callback latencies: what may overlap, in which
 * order messages start and complete, and that every mode processes, outputs and commits each
 * message exactly once.
 */
class AsyncOrderingTest {
  private static final int PARTITIONS = 3;
  private static final int KEYS = 10;

  @TempDir Path tmp;
  private ScheduledExecutorService completer;
  private AsyncJob job;

  /** What the running task saw; the task is created by the runtime, so it finds this here. */
  static volatile Probe probe;

  @BeforeEach
  void setUp() {
    completer = Executors.newScheduledThreadPool(2);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
    probe = null;
  }

  /** Records starts, completions, overlaps; completes each message after a random latency. */
  static final class Probe {
    final Random latencies;
    final int maxLatencyMicros;
    final ScheduledExecutorService completer;
    /** Per partition, offsets in the order processAsync saw them (loop thread). */
    final Map<Integer, List<Long>> started = new ConcurrentHashMap<>();
    /** Per partition, offsets in the order their callbacks completed. */
    final Map<Integer, List<Long>> completed = new ConcurrentHashMap<>();
    /** Per "partition/key", offsets in the order their callbacks completed. */
    final Map<String, List<Long>> completedByKey = new ConcurrentHashMap<>();
    /** Per "partition/key", messages between processAsync and complete(). */
    final Map<String, AtomicInteger> inFlightByKey = new ConcurrentHashMap<>();
    final Map<Integer, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    final Map<Integer, AtomicInteger> maxInFlight = new ConcurrentHashMap<>();
    /** How often each "partition:offset" was handed to the task. */
    final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
    /** Overlaps of one key, when the ordering forbids them. */
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final boolean keysExclusive;
    /** Overlaps of one key seen, allowed or not (shows the detector can see them). */
    final AtomicInteger keyOverlaps = new AtomicInteger();

    Probe(long seed, int maxLatencyMicros, ScheduledExecutorService completer,
        boolean keysExclusive) {
      this.keysExclusive = keysExclusive;
      this.latencies = new Random(seed);
      this.maxLatencyMicros = maxLatencyMicros;
      this.completer = completer;
    }

    void onStart(Envelope e) {
      int p = e.partition();
      processed.computeIfAbsent(p + ":" + e.offset(), k -> new AtomicInteger()).incrementAndGet();
      list(started, p).add(e.offset());
      int sameKey = inFlightByKey.computeIfAbsent(p + "/" + e.key(), k -> new AtomicInteger())
          .incrementAndGet();
      if (sameKey > 1) {
        keyOverlaps.incrementAndGet();
      }
      if (sameKey > 1 && keysExclusive) {
        violations.add("key " + e.key() + " of partition " + p + " overlaps at offset "
            + e.offset());
      }
      int now = inFlight.computeIfAbsent(p, k -> new AtomicInteger()).incrementAndGet();
      maxInFlight.computeIfAbsent(p, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
    }

    /** Called on the completing thread, just before complete(). */
    void onComplete(Envelope e) {
      int p = e.partition();
      inFlight.get(p).decrementAndGet();
      list(completed, p).add(e.offset());
      completedByKey.computeIfAbsent(p + "/" + e.key(),
          k -> Collections.synchronizedList(new ArrayList<>())).add(e.offset());
      inFlightByKey.get(p + "/" + e.key()).decrementAndGet();
    }

    private static List<Long> list(Map<Integer, List<Long>> lists, int p) {
      return lists.computeIfAbsent(p, k -> Collections.synchronizedList(new ArrayList<>()));
    }

    long nextLatencyMicros() {
      synchronized (latencies) {
        return latencies.nextInt(maxLatencyMicros + 1);
      }
    }
  }

  /** Completes each message on the completer's threads after a random latency, sending one output. */
  public static final class ProbeTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      Probe p = probe;
      p.onStart(e);
      p.completer.schedule(() -> {
        collector.send("out", e.partition(), e.key(), e.value());
        p.onComplete(e);
        callback.complete();
      }, p.nextLatencyMicros(), TimeUnit.MICROSECONDS);
    }
  }

  private void run(long seed, String ordering, int concurrency, int perPartition,
      int maxLatencyMicros) throws InterruptedException {
    probe = new Probe(seed, maxLatencyMicros, completer, ordering.equals("key"));
    Random keys = new Random(seed * 31 + 7);
    job = new AsyncJob(tmp, ProbeTask.class, PARTITIONS)
        .set("task.ordering", ordering)
        .set("task.max.concurrency", concurrency)
        .fill(perPartition, (p, i) -> "k" + keys.nextInt(KEYS))
        .seal();
    job.runOk();
    assertExactlyOnce(perPartition);
  }

  /** Each message processed once, output once, and the checkpoint at each partition's end. */
  private void assertExactlyOnce(int perPartition) {
    Probe p = probe;
    assertThat(p.violations).isEmpty();
    assertThat(p.processed).hasSize(PARTITIONS * perPartition);
    assertThat(p.processed.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    for (int partition = 0; partition < PARTITIONS; partition++) {
      List<Object> expected = new ArrayList<>();
      for (int i = 0; i < perPartition; i++) {
        expected.add(partition + ":" + i);
      }
      List<Object> out = job.output(partition).stream().map(Envelope::value)
          .collect(Collectors.toList());
      assertThat(out).as("output of partition %d", partition)
          .hasSize(perPartition).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(job.checkpointOf(partition)).as("checkpoint of partition %d", partition)
          .isEqualTo(perPartition - 1L);
    }
  }

  private static List<Long> range(int n) {
    return LongStream.range(0, n).boxed().collect(Collectors.toList());
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void partitionOrderWithConcurrencyOneStartsAndCompletesInOffsetOrder(long seed)
      throws Exception {
    int n = 120;
    run(seed, "partition", 1, n, 2_000);
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(probe.started.get(p)).as("processing order of partition %d", p)
          .isEqualTo(range(n));
      assertThat(probe.completed.get(p)).as("completion order of partition %d", p)
          .isEqualTo(range(n));
      assertThat(probe.maxInFlight.get(p).get()).isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void keyOrderNeverOverlapsOneKeyAndCompletesEachKeyInOffsetOrderWhileKeysOverlap(long seed)
      throws Exception {
    int n = 300;
    run(seed, "key", 32, n, 3_000);
    // No overlap of one key: checked as each message started (probe.violations, empty above).
    Map<String, List<Long>> offsetsByKey = new TreeMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (Envelope e : job.input().messages(p)) {
        offsetsByKey.computeIfAbsent(p + "/" + e.key(), k -> new ArrayList<>()).add(e.offset());
      }
    }
    assertThat(probe.completedByKey).hasSameSizeAs(offsetsByKey);
    offsetsByKey.forEach((key, offsets) -> assertThat(probe.completedByKey.get(key))
        .as("completion order of key %s", key).isEqualTo(offsets));
    boolean reordered = false;
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(probe.maxInFlight.get(p).get()).as("different keys of partition %d overlap", p)
          .isGreaterThan(1);
      assertThat(probe.started.get(p)).as("a key's successor may overtake other keys")
          .containsExactlyInAnyOrderElementsOf(range(n));
      reordered |= !probe.completed.get(p).equals(range(n));
    }
    assertThat(reordered).as("random latencies completed some keys out of offset order").isTrue();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void noOrderLosesAndDuplicatesNothing(long seed) throws Exception {
    int n = 600;
    run(seed, "none", 32, n, 3_000);
    boolean reordered = false;
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(probe.maxInFlight.get(p).get()).isGreaterThan(1).isLessThanOrEqualTo(32);
      assertThat(probe.completed.get(p)).containsExactlyInAnyOrderElementsOf(range(n));
      reordered |= !probe.completed.get(p).equals(range(n));
    }
    assertThat(reordered).as("random latencies completed messages out of offset order").isTrue();
    assertThat(probe.keyOverlaps.get()).as("without key order, one key's messages do overlap")
        .isPositive();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2})
  void partitionOrderWithConcurrencyAboveOneOverlapsUpToTheLimit(long seed) throws Exception {
    int n = 300;
    run(seed, "partition", 4, n, 2_000);
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(probe.started.get(p)).as("messages start in offset order").isEqualTo(range(n));
      assertThat(probe.maxInFlight.get(p).get()).isBetween(2, 4);
    }
  }
}
