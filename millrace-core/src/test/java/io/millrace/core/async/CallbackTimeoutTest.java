package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.TaskFailedException;
import io.millrace.core.testing.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code task.callback.timeout.ms}: a callback that never comes fails its message. The loop's clock
 * is the test's and stands still until the test moves it, once every other call has completed: the
 * time-out fires on the message that never completes and on no other, however slow the machine.
 */
class CallbackTimeoutTest {
  private static final Duration TIME_OUT = Duration.ofMillis(50);
  @TempDir Path tmp;
  private ExecutorService completer;
  private AsyncJob job;

  static volatile ExecutorService pool;
  /** The callback of offset 3, which the task never completes. */
  static volatile TaskCallback lost;
  static volatile Collector lostCollector;
  /** The calls completed (counted once {@code complete} returned: the loop has been told). */
  static final AtomicInteger completed = new AtomicInteger();

  /** Never completes offset 3 of partition 0; completes every other message on another thread. */
  public static final class ForgetfulTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      if (e.offset() == 3) {
        lostCollector = collector;
        lost = callback;
        return;
      }
      pool.execute(() -> {
        collector.send("out", e.partition(), e.key(), e.value());
        callback.complete();
        completed.incrementAndGet();
      });
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newSingleThreadExecutor();
    pool = completer;
    lost = null;
    lostCollector = null;
    completed.set(0);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
  }

  private List<Object> outputValues() {
    return job.output(0).stream().map(Envelope::value).collect(Collectors.toList());
  }

  private static List<Object> valuesExcept(int count, int missing) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      if (i != missing) {
        values.add("0:" + i);
      }
    }
    return values;
  }

  @Test
  void underSkipATimedOutMessageIsCountedAsSkippedAndALateCompleteIsIgnored() throws Exception {
    TestClock clock = TestClock.manual();
    job = new AsyncJob(tmp, ForgetfulTask.class, 1)
        .set("task.callback.timeout.ms", TIME_OUT.toMillis())
        .set("task.error.policy", "skip")
        .set("task.max.concurrency", 4)
        .fill(10, (p, i) -> null); // live: the job is still running when the late callback comes
    LocalRunner runner = job.start(clock);
    try {
      AsyncJob.awaitCondition("every call but offset 3's completed",
          () -> completed.get() == 9 && lost != null);
      clock.advance(TIME_OUT); // exactly the time-out: not past it
      clock.awaitReads(5, "the loop going round at the time-out");
      assertThat(AsyncJob.counter(runner, "messages-skipped")).as("not before the time-out")
          .isZero();
      // Past it (by more than the loop's look-out interval for time-outs, a tenth of it).
      clock.advance(TIME_OUT);
      AsyncJob.awaitCondition("offset 3 times out",
          () -> AsyncJob.counter(runner, "messages-skipped") == 1);
      AsyncJob.awaitCondition("the watermark passes the skipped message",
          () -> runner.containers().get(0).loop().partitions().get(0).lastOffset() == 9);

      // The callback comes after all, with output: no exception, and nothing changes.
      assertThatCode(() -> {
        lostCollector.send("out", 0, null, "late");
        lost.complete();
      }).doesNotThrowAnyException();
      assertThatCode(() -> lost.fail(new RuntimeException("late too")))
          .doesNotThrowAnyException();

      for (int i = 10; i < 20; i++) {
        job.input().append(0, null, "0:" + i);
      }
      job.seal();
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);
    assertThat(runner.failure()).isNull();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    assertThat(outputValues()).as("every other message once; the late output never")
        .containsExactlyInAnyOrderElementsOf(valuesExcept(20, 3));
    assertThat(job.checkpointOf(0)).isEqualTo(19);
  }

  @Test
  void underFailATimedOutMessageFailsTheJobNamingItsOffsetAndTheTimeOut() throws Exception {
    TestClock clock = TestClock.manual();
    job = new AsyncJob(tmp, ForgetfulTask.class, 1)
        .set("task.callback.timeout.ms", TIME_OUT.toMillis())
        .set("task.error.policy", "fail")
        .set("task.max.concurrency", 4)
        .fill(10, (p, i) -> null)
        .seal();
    LocalRunner runner = job.start(clock);
    try {
      AsyncJob.awaitCondition("every call but offset 3's completed",
          () -> completed.get() == 9 && lost != null);
      assertThat(runner.failure()).isNull();
      clock.advance(TIME_OUT.plusMillis(1));
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);

    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("task Partition 0")
        .hasMessageContaining("in/0 offset 3")
        .hasMessageContaining("task.callback.timeout.ms=50")
        .hasMessageContaining("did not complete");
    assertThat(job.checkpointOf(0)).as("committed up to the message before the one timed out")
        .isEqualTo(2);

    // The callback comes after the job failed: ignored, no exception to the caller.
    assertThatCode(() -> lost.complete()).doesNotThrowAnyException();
  }

  @Test
  void aCallbackThatCompletesBeforeTheTimeOutIsNotTimedOut() throws Exception {
    TestClock clock = TestClock.manual();
    job = new AsyncJob(tmp, ForgetfulTask.class, 1)
        .set("task.callback.timeout.ms", 300)
        .set("task.error.policy", "fail")
        .set("task.max.concurrency", 4)
        .fill(10, (p, i) -> null)
        .seal();
    LocalRunner runner = job.start(clock);
    try {
      AsyncJob.awaitCondition("offset 3 is held", () -> lost != null);
      clock.advance(Duration.ofMillis(300)); // the whole time-out, and not a nanosecond more
      clock.awaitReads(5, "the loop going round at the time-out");
      lostCollector.send("out", 0, null, "0:3");
      lost.complete();
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);
    assertThat(runner.failure()).isNull();
    assertThat(outputValues()).containsExactlyInAnyOrderElementsOf(valuesExcept(10, -1));
    assertThat(job.checkpointOf(0)).isEqualTo(9);
  }
}
