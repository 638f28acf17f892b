package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.InitableTask;
import io.millrace.api.TaskContext;
import io.millrace.api.WindowableTask;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Blocking synchronous tasks on {@code job.container.thread.pool.size} worker threads. */
class WorkerPoolJobTest {
  private static final int PARTITIONS = 2;
  private static final int PER_PARTITION = 150;
  private static final long SLEEP_MS = 2;

  @TempDir Path tmp;
  private AsyncJob job;

  static final AtomicInteger running = new AtomicInteger();
  static final AtomicInteger maxRunning = new AtomicInteger();
  static final Map<String, AtomicInteger> runningByKey = new ConcurrentHashMap<>();
  static final Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
  static final Set<String> threads = ConcurrentHashMap.newKeySet();
  static final List<String> keyOverlaps = Collections.synchronizedList(new ArrayList<>());
  /**
   * The first messages wait here until this many are in process at once (the gate then stays
   * open): a pool that ran fewer at a time would keep them waiting until the deadline.
   */
  static volatile CountDownLatch gate;
  static final AtomicInteger gateTimedOut = new AtomicInteger();

  /**
   * Blocks 2 ms per message, like a blocking remote call, the first ones at the gate until enough
   * are in process together; sends one output.
   */
  public static final class BlockingTask implements StreamTask {
    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      int now = running.incrementAndGet();
      maxRunning.accumulateAndGet(now, Math::max);
      String key = e.partition() + "/" + e.key();
      if (runningByKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
        keyOverlaps.add(key + " at offset " + e.offset());
      }
      threads.add(Thread.currentThread().getName());
      processed.computeIfAbsent(e.partition() + ":" + e.offset(), k -> new AtomicInteger())
          .incrementAndGet();
      try {
        CountDownLatch g = gate;
        if (g != null && g.getCount() > 0) {
          g.countDown();
          if (!g.await(Await.DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            gateTimedOut.incrementAndGet();
          }
        }
        Thread.sleep(SLEEP_MS);
        collector.send("out", e.partition(), e.key(), e.value());
      } finally {
        runningByKey.get(key).decrementAndGet();
        running.decrementAndGet();
      }
    }
  }

  @BeforeEach
  void setUp() {
    running.set(0);
    maxRunning.set(0);
    runningByKey.clear();
    processed.clear();
    threads.clear();
    keyOverlaps.clear();
    gate = null;
    gateTimedOut.set(0);
  }

  @AfterEach
  void tearDown() {
    if (job != null) {
      job.close();
    }
  }

  private AsyncJob job() {
    job = new AsyncJob(tmp, BlockingTask.class, PARTITIONS)
        .set("job.container.thread.pool.size", 4)
        .set("task.max.concurrency", 4)
        .fill(PER_PARTITION, (p, i) -> "k" + (i % 10))
        .seal();
    return job;
  }

  private void assertEverythingOnce() {
    assertThat(processed).hasSize(PARTITIONS * PER_PARTITION);
    assertThat(processed.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    for (int p = 0; p < PARTITIONS; p++) {
      List<Object> expected = new ArrayList<>();
      for (int i = 0; i < PER_PARTITION; i++) {
        expected.add(p + ":" + i);
      }
      assertThat(job.output(p).stream().map(Envelope::value).collect(Collectors.toList()))
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(job.checkpointOf(p)).isEqualTo(PER_PARTITION - 1L);
    }
  }

  @Test
  void aBlockingTaskOnFourWorkersHasFourMessagesInProcessAtOnceAndNeverMore() throws Exception {
    gate = new CountDownLatch(4);
    AsyncJob j = job();
    LocalRunner runner = j.runOk();
    assertThat(gateTimedOut.get()).as("messages that waited in vain for four in process at once")
        .isZero();
    assertThat(maxRunning.get()).as("messages in process at once").isEqualTo(4);
    assertThat(threads).allSatisfy(name -> assertThat(name).startsWith("millrace-container-0-worker-"));
    assertThat(runner.failure()).isNull();
    assertEverythingOnce();
  }

  @Test
  void keyOrderOnThePoolNeverRunsOneKeyTwiceAtOnce() throws Exception {
    gate = new CountDownLatch(2);
    job().set("task.ordering", "key").runOk();
    assertThat(keyOverlaps).isEmpty();
    assertThat(gateTimedOut.get()).as("different keys still run in parallel").isZero();
    assertThat(maxRunning.get()).as("different keys still run in parallel").isGreaterThan(1);
    assertEverythingOnce();
  }

  @Test
  void virtualThreadsOnJava17FallBackToPlatformWorkers() throws Exception {
    gate = new CountDownLatch(2);
    job().set("job.container.thread.pool.virtual", true).runOk();
    assertEverythingOnce();
    assertThat(gateTimedOut.get()).isZero();
    assertThat(maxRunning.get()).isGreaterThan(1);
    if (Runtime.version().feature() < 21) {
      assertThat(threads).as("the platform-thread fallback")
          .allSatisfy(name -> assertThat(name).startsWith("millrace-container-0-worker-"));
    }
  }

  /** Throws on offset 5 of every partition, after sending its output. */
  public static final class ThrowingBlockingTask implements StreamTask {
    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      processed.computeIfAbsent(e.partition() + ":" + e.offset(), k -> new AtomicInteger())
          .incrementAndGet();
      collector.send("out", e.partition(), e.key(), e.value());
      if (e.offset() == 5) {
        throw new IllegalStateException("blocking call failed at " + e.offset());
      }
    }
  }

  @Test
  void aBlockingTaskThatThrowsOnAWorkerIsHandledByTheErrorPolicy() throws Exception {
    job = new AsyncJob(tmp, ThrowingBlockingTask.class, PARTITIONS)
        .set("job.container.thread.pool.size", 4)
        .set("task.max.concurrency", 4)
        .set("task.error.policy", "skip")
        .fill(20, (p, i) -> null)
        .seal();
    LocalRunner runner = job.runOk();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(PARTITIONS);
    assertThat(processed).hasSize(PARTITIONS * 20);
    for (int p = 0; p < PARTITIONS; p++) {
      assertThat(job.output(p)).as("the failed message's output is dropped with it").hasSize(19)
          .extracting(Envelope::value).doesNotContain(p + ":5");
      assertThat(job.checkpointOf(p)).isEqualTo(19);
    }
  }

  @Test
  void withoutAPoolASynchronousTaskRunsInlineOnTheLoopThread() throws Exception {
    job = new AsyncJob(tmp, BlockingTask.class, 1)
        .set("task.max.concurrency", 4)
        .fill(20, (p, i) -> null)
        .seal();
    job.runOk();
    assertThat(maxRunning.get()).isEqualTo(1);
    assertThat(threads).singleElement().asString().contains("-container-0");
  }

  static final List<String> besideProcess = Collections.synchronizedList(new ArrayList<>());
  static final AtomicInteger outsideCalls = new AtomicInteger();

  /**
   * Parks about half a millisecond in each process, and notes any window or scheduled callback
   * that runs while one of its messages is inside process on a worker thread.
   */
  public static final class WindowingBlockingTask
      implements StreamTask, WindowableTask, InitableTask {
    private final AtomicInteger inProcess = new AtomicInteger();

    @Override
    public void init(TaskContext context) {
      context.scheduleEvery(Duration.ofMillis(1), (collector, coordinator) -> outside("callback"));
    }

    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      inProcess.incrementAndGet();
      try {
        processed.computeIfAbsent(e.partition() + ":" + e.offset(), k -> new AtomicInteger())
            .incrementAndGet();
        LockSupport.parkNanos(500_000L); // a blocking call: the loop's timers come due meanwhile
        collector.send("out", e.partition(), e.key(), e.value());
      } finally {
        inProcess.decrementAndGet();
      }
    }

    @Override
    public void window(Collector collector, TaskCoordinator coordinator) {
      outside("window");
    }

    private void outside(String what) {
      outsideCalls.incrementAndGet();
      if (inProcess.get() > 0) {
        besideProcess.add(what + " on " + Thread.currentThread().getName());
      }
    }
  }

  @Test
  void windowAndScheduledCallbacksNeverRunBesideProcessOnAWorker() throws Exception {
    besideProcess.clear();
    outsideCalls.set(0);
    job = new AsyncJob(tmp, WindowingBlockingTask.class, PARTITIONS)
        .set("job.container.thread.pool.size", 2)
        .set("task.window.ms", 1)
        .fill(PER_PARTITION, (p, i) -> null)
        .seal();
    job.runOk();
    assertThat(outsideCalls.get()).as("windows and callbacks that ran").isPositive();
    assertThat(besideProcess).as("windows and callbacks that ran while process did").isEmpty();
    assertEverythingOnce();
  }
}
