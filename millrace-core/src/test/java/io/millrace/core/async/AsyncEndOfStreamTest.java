package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** End of stream, and the rest of a task's life cycle, around messages still in flight. */
class AsyncEndOfStreamTest {
  private static final int PARTITIONS = 2;
  private static final int PER_PARTITION = 40;

  @TempDir Path tmp;
  private ScheduledExecutorService completer;
  private AsyncJob job;

  static volatile ScheduledExecutorService pool;
  /** "init p", "complete p:offset", "end p", "close p", in the order they happened. */
  static final List<String> events = Collections.synchronizedList(new ArrayList<>());

  /** Completes each message 1-3 ms later on another thread; records its whole life cycle. */
  public static final class ListeningAsyncTask
      implements AsyncStreamTask, InitableTask, EndOfStreamListener, ClosableTask {
    private int partition = -1;

    @Override
    public void init(TaskContext context) {
      partition = context.partitionNumber();
      events.add("init " + partition);
    }

    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      pool.schedule(() -> {
        collector.send("out", e.partition(), e.key(), e.value());
        events.add("complete " + e.partition() + ":" + e.offset());
        callback.complete();
      }, 1 + e.offset() % 3, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
      events.add("end " + partition);
    }

    @Override
    public void close() {
      events.add("close " + partition);
    }
  }

  /** The same on the worker pool: a blocking task whose messages are in flight on workers. */
  public static final class ListeningBlockingTask
      implements StreamTask, InitableTask, EndOfStreamListener {
    private int partition = -1;

    @Override
    public void init(TaskContext context) {
      partition = context.partitionNumber();
    }

    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      Thread.sleep(1 + e.offset() % 3);
      collector.send("out", e.partition(), e.key(), e.value());
      events.add("complete " + e.partition() + ":" + e.offset());
    }

    @Override
    public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
      events.add("end " + partition);
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newScheduledThreadPool(2);
    pool = completer;
    events.clear();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
  }

  /** Each partition's end comes once, after every one of its completions. */
  private static void assertEndAfterEveryCompletion() {
    List<String> seen = new ArrayList<>(events);
    for (int p = 0; p < PARTITIONS; p++) {
      int end = seen.indexOf("end " + p);
      assertThat(end).as("onEndOfStream of task %d was called", p).isNotNegative();
      assertThat(seen.lastIndexOf("end " + p)).as("once").isEqualTo(end);
      for (int i = 0; i < PER_PARTITION; i++) {
        String completion = "complete " + p + ":" + i;
        assertThat(seen.indexOf(completion)).as("%s before end %d", completion, p)
            .isNotNegative().isLessThan(end);
      }
    }
  }

  @Test
  void anAsyncTaskGetsOnEndOfStreamOnlyAfterAllItsMessagesCompleted() throws Exception {
    job = new AsyncJob(tmp, ListeningAsyncTask.class, PARTITIONS)
        .set("task.max.concurrency", 16)
        .set("task.ordering", "none")
        .fill(PER_PARTITION, (p, i) -> null)
        .seal();
    job.runOk();
    assertEndAfterEveryCompletion();
    assertThat(job.output()).hasSize(PARTITIONS * PER_PARTITION);
  }

  @Test
  void anAsyncTaskIsInitialisedBeforeItsFirstMessageAndClosedAfterItsEnd() throws Exception {
    job = new AsyncJob(tmp, ListeningAsyncTask.class, PARTITIONS)
        .set("task.max.concurrency", 4)
        .fill(PER_PARTITION, (p, i) -> null)
        .seal();
    job.runOk();
    List<String> seen = new ArrayList<>(events);
    for (int p = 0; p < PARTITIONS; p++) {
      int init = seen.indexOf("init " + p);
      assertThat(init).as("init of task %d", p).isNotNegative()
          .isLessThan(seen.indexOf("complete " + p + ":0"));
      assertThat(seen.indexOf("close " + p)).as("close of task %d", p)
          .isGreaterThan(seen.indexOf("end " + p));
    }
  }

  @Test
  void aBlockingTaskOnThePoolGetsOnEndOfStreamOnlyAfterAllItsMessagesCompleted()
      throws Exception {
    job = new AsyncJob(tmp, ListeningBlockingTask.class, PARTITIONS)
        .set("job.container.thread.pool.size", 4)
        .set("task.max.concurrency", 4)
        .fill(PER_PARTITION, (p, i) -> null)
        .seal();
    job.runOk();
    assertEndAfterEveryCompletion();
    assertThat(job.output()).hasSize(PARTITIONS * PER_PARTITION);
  }
}
