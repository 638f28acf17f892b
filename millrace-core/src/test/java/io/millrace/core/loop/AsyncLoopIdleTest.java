package io.millrace.core.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import io.millrace.core.testing.TestClock;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop thread while async tasks wait for callbacks: it sleeps, also when messages are buffered
 * for tasks at their concurrency limit, and a completion wakes it. The loop's clock counts its
 * reads (one a cycle), so a test measures the loop's processor time over whole cycles of its own
 * instead of over a sleep of the test's: a spinning loop goes round five times in microseconds, on
 * a whole core; a sleeping one takes a park per cycle and next to no processor time. (How soon a
 * completion wakes the loop is a speed, not a behaviour: benchmarks measure it.)
 */
class AsyncLoopIdleTest {
  private static final AtomicInteger UNIQUE = new AtomicInteger();
  static final List<TaskCallback> held = new CopyOnWriteArrayList<>();

  @TempDir Path tmp;
  private String input;
  private final TestClock clock = TestClock.counting();

  /** Holds every callback until the test completes it. */
  public static final class HoldingTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      held.add(callback);
    }
  }

  @AfterEach
  void tearDown() {
    held.clear();
    if (input != null) {
      MemoryStreams.drop(input);
    }
  }

  private LocalRunner start(int concurrency, int messages) {
    input = "idle-in-" + UNIQUE.incrementAndGet();
    MemoryStream stream = MemoryStreams.create(input, 1);
    for (int i = 0; i < messages; i++) {
      stream.append(0, null, "m" + i);
    }
    stream.seal();
    String job = "idle-job-" + UNIQUE.get();
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(Map.of(
        "job.name", job,
        "task.class", HoldingTask.class.getName(),
        "task.inputs", "in",
        "task.max.concurrency", String.valueOf(concurrency),
        "job.state.dir", tmp.resolve("state").toString(),
        "streams.in.system", "memory",
        "streams.in.physical.name", input))), clock);
    runner.start();
    return runner;
  }

  private static void awaitHeld(int count) throws Exception {
    Await.until(Await.DEADLINE, count + " callbacks held", () -> held.size() >= count);
  }

  /**
   * The share of a core the loop thread used while it went round five more cycles (1: it never
   * left the processor).
   */
  private double shareOfACoreOverFiveCycles(long threadId) throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuBefore = threads.getThreadCpuTime(threadId);
    long wallBefore = System.nanoTime();
    clock.awaitReads(5, "five cycles of the loop");
    long cpu = threads.getThreadCpuTime(threadId) - cpuBefore;
    return (double) cpu / (System.nanoTime() - wallBefore);
  }

  private static long loopThreadId(LocalRunner runner) {
    String name = "millrace-" + runner.plan().jobName() + "-container-0";
    for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
      if (info.getThreadName().equals(name)) {
        return info.getThreadId();
      }
    }
    throw new AssertionError("no thread " + name);
  }

  @Test
  void aLoopWhoseTaskIsAtItsLimitWithMessagesBufferedSleepsInsteadOfSpinning() throws Exception {
    assumeThat(ManagementFactory.getThreadMXBean().isCurrentThreadCpuTimeSupported()).isTrue();
    LocalRunner runner = start(4, 100);
    try {
      awaitHeld(4); // at the limit, 96 messages buffered behind it
      long id = loopThreadId(runner);
      assertThat(shareOfACoreOverFiveCycles(id))
          .as("share of a core the waiting loop used (spinning: ~1)").isLessThan(0.25);
      assertThat(held).as("five cycles on, still at the limit").hasSize(4);

      // A completion lets the next message out.
      held.get(0).complete();
      awaitHeld(5);
    } finally {
      runner.requestStop();
      assertThat(runner.await(Await.DEADLINE.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
    }
    assertThat(runner.failure()).isNull();
  }

  @Test
  void aLoopWaitingForCallbacksWithNothingBufferedSleepsToo() throws Exception {
    assumeThat(ManagementFactory.getThreadMXBean().isCurrentThreadCpuTimeSupported()).isTrue();
    LocalRunner runner = start(8, 3);
    try {
      awaitHeld(3);
      assertThat(shareOfACoreOverFiveCycles(loopThreadId(runner))).isLessThan(0.25);
      for (TaskCallback callback : held) {
        callback.complete();
      }
      assertThat(runner.await(Await.DEADLINE.toNanos(), TimeUnit.NANOSECONDS))
          .as("the job ends once they complete").isTrue();
    } finally {
      runner.requestStop();
      runner.await(Await.DEADLINE.toNanos(), TimeUnit.NANOSECONDS);
    }
    assertThat(runner.failure()).isNull();
  }
}
