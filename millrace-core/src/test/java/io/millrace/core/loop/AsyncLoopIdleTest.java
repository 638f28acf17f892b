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
 * for tasks at their concurrency limit, and a completion wakes it at once.
 */
class AsyncLoopIdleTest {
  private static final AtomicInteger UNIQUE = new AtomicInteger();
  static final List<TaskCallback> held = new CopyOnWriteArrayList<>();

  @TempDir Path tmp;
  private String input;

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
        "streams.in.physical.name", input))), Clock.SYSTEM);
    runner.start();
    return runner;
  }

  private static void awaitHeld(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (held.size() < count) {
      assertThat(System.nanoTime()).as("%d callbacks held", count).isLessThan(deadline);
      Thread.sleep(1);
    }
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
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeThat(threads.isCurrentThreadCpuTimeSupported()).isTrue();
    LocalRunner runner = start(4, 100);
    try {
      awaitHeld(4); // at the limit, 96 messages buffered behind it
      long id = loopThreadId(runner);
      long cpuBefore = threads.getThreadCpuTime(id);
      long wallBefore = System.nanoTime();
      Thread.sleep(300);
      long cpu = threads.getThreadCpuTime(id) - cpuBefore;
      long wall = System.nanoTime() - wallBefore;
      assertThat(held).hasSize(4);
      assertThat((double) cpu / wall).as("share of a core the waiting loop used (spinning: ~1)")
          .isLessThan(0.25);

      // A completion wakes it: the next message goes out at once, not after a poll interval.
      long completed = System.nanoTime();
      held.get(0).complete();
      awaitHeld(5);
      assertThat(System.nanoTime() - completed).isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
    } finally {
      runner.requestStop();
      assertThat(runner.await(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(runner.failure()).isNull();
  }

  @Test
  void aLoopWaitingForCallbacksWithNothingBufferedSleepsToo() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeThat(threads.isCurrentThreadCpuTimeSupported()).isTrue();
    LocalRunner runner = start(8, 3);
    try {
      awaitHeld(3);
      long id = loopThreadId(runner);
      long cpuBefore = threads.getThreadCpuTime(id);
      long wallBefore = System.nanoTime();
      Thread.sleep(200);
      long cpu = threads.getThreadCpuTime(id) - cpuBefore;
      assertThat((double) cpu / (System.nanoTime() - wallBefore)).isLessThan(0.25);
      for (TaskCallback callback : held) {
        callback.complete();
      }
      assertThat(runner.await(10, TimeUnit.SECONDS)).as("the job ends once they complete")
          .isTrue();
    } finally {
      runner.requestStop();
      runner.await(10, TimeUnit.SECONDS);
    }
    assertThat(runner.failure()).isNull();
  }
}
