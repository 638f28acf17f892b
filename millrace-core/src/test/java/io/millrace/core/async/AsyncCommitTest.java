package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.testing.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commits of an async task never wait for messages in flight and never pass one: the checkpoint is
 * the contiguous watermark, so a slow message is re-delivered after a crash, and nothing before it.
 */
class AsyncCommitTest {
  @TempDir Path tmp;
  private ExecutorService completer;
  private AsyncJob job;

  static volatile Holder holder;

  /** Holds back the message at {@link #heldOffset} of partition 0; completes the rest at once. */
  static final class Holder {
    final long heldOffset;
    final ExecutorService completer;
    final List<Long> delivered = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger completed = new AtomicInteger();
    volatile TaskCallback held;
    volatile Collector heldCollector;

    Holder(long heldOffset, ExecutorService completer) {
      this.heldOffset = heldOffset;
      this.completer = completer;
    }
  }

  public static final class HoldingTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      Holder h = holder;
      h.delivered.add(e.offset());
      if (e.offset() == h.heldOffset) {
        h.heldCollector = collector;
        h.held = callback;
        return;
      }
      h.completer.execute(() -> {
        collector.send("out", e.partition(), e.key(), e.value());
        callback.complete();
        h.completed.incrementAndGet(); // once complete returned: the loop has been told
      });
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newFixedThreadPool(2);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
    holder = null;
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().collect(Collectors.toList());
  }

  @Test
  void commitsWhileASlowCallIsInFlightStopAtTheWatermarkAndARestartResumesAtTheSlowMessage()
      throws Exception {
    holder = new Holder(5, completer);
    TestClock clock = TestClock.manual(); // a commit is due when the test moves it 5 ms on
    job = new AsyncJob(tmp, HoldingTask.class, 1)
        .set("task.max.concurrency", 8)
        .set("task.commit.ms", 5)
        .fill(30, (p, i) -> null); // not sealed: a live stream
    LocalRunner runner = job.start(clock);
    try {
      AsyncJob.awaitCondition("every message but offset 5 completed",
          () -> holder.completed.get() == 29);
      assertThat(holder.held).isNotNull();

      // Timed commits go on while offset 5 is in flight: each says 4, never more.
      for (int i = 0; i < 3; i++) {
        long commits = AsyncJob.counter(runner, "commits");
        clock.advance(Duration.ofMillis(5));
        AsyncJob.awaitCondition("timed commit " + i,
            () -> AsyncJob.counter(runner, "commits") > commits);
        assertThat(job.checkpointOf(0)).as("checkpoint after timed commit %d", i).isEqualTo(4);
      }
      assertThat(runner.failure()).isNull();
    } finally {
      // The crash: stop while offset 5 is still held (its callback never comes).
      runner.requestStop();
      AsyncJob.await(runner);
    }
    assertThat(runner.failure()).isNull();
    assertThat(job.checkpointOf(0)).as("the final commit does not pass the held message")
        .isEqualTo(4);
    assertThat(holder.delivered).isEqualTo(range(0, 30));

    // Restart with a task that completes everything at once.
    holder = new Holder(-1, completer);
    job.input().seal();
    job.runOk();
    assertThat(holder.delivered).as("redelivery starts at the held message, nothing before it")
        .isEqualTo(range(5, 30));
    assertThat(job.checkpointOf(0)).isEqualTo(29);
  }

  @Test
  void aHeldMessageBoundsHowFarItsPartitionRunsAheadAndReleasingItLetsTheRestThrough()
      throws Exception {
    // Concurrency 2: the partition's watermark ring has (16 + 4) * 2 + 16 = 56 slots (look-ahead
    // for key ordering, then completed ones behind), rounded up to 64.
    holder = new Holder(5, completer);
    job = new AsyncJob(tmp, HoldingTask.class, 1)
        .set("task.max.concurrency", 2)
        .fill(500, (p, i) -> null)
        .seal();
    TestClock clock = TestClock.counting();
    LocalRunner runner = job.start(clock);
    try {
      AsyncJob.awaitCondition("offset 5 is held", () -> holder.held != null);
      AsyncJob.awaitCondition("the ring fills behind offset 5",
          () -> holder.completed.get() == 5 + 63);
      // Each cycle applies the completions told before it, then delivers what it may: five
      // cycles after the last one, the loop has had every chance to deliver offset 69.
      clock.awaitReads(5, "the loop going round with the ring full");
      assertThat(holder.delivered).as("offsets 5..68 fill the 64 slots; no more is delivered")
          .isEqualTo(range(0, 69));
      assertThat(runner.failure()).isNull();

      holder.heldCollector.send("out", 0, null, "0:5");
      holder.held.complete();
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);
    assertThat(runner.failure()).isNull();
    assertThat(holder.delivered).isEqualTo(range(0, 500));
    assertThat(job.output(0)).hasSize(500);
    assertThat(job.checkpointOf(0)).isEqualTo(499);
  }

  @Test
  void underKeyOrderingAFreeKeyBehindABusyOneStartsWhileTheBusyKeyWaits() throws Exception {
    // Concurrency 2: offset 0 (key A) is held; A's next ten messages wait behind it, and B's
    // (offset 11) still starts in the free slot: a task looks ahead up to 16x its concurrency
    // past busy keys (at 1x, two waiting A's would have stopped delivery before B).
    holder = new Holder(0, completer);
    job = new AsyncJob(tmp, HoldingTask.class, 1)
        .set("task.max.concurrency", 2)
        .set("task.ordering", "key")
        .fill(12, (p, i) -> i <= 10 ? "A" : "B")
        .seal();
    LocalRunner runner = job.start();
    try {
      AsyncJob.awaitCondition("B completes while A is held", () -> holder.completed.get() == 1);
      assertThat(holder.delivered).containsExactly(0L, 11L);
      holder.heldCollector.send("out", 0, null, "0:0");
      holder.held.complete();
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);
    assertThat(runner.failure()).isNull();
    assertThat(holder.delivered).containsExactly(0L, 11L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(job.checkpointOf(0)).isEqualTo(11);
  }
}
