package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.job.LocalRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A callback settles once: a second complete() or fail() throws, naming the task and offset. */
class CallbackCompletionTest {
  @TempDir Path tmp;
  private ExecutorService completer;
  private AsyncJob job;

  static volatile ExecutorService pool;
  /** What the second call on a callback threw, by offset. */
  static final Map<Long, Throwable> secondCall = new ConcurrentHashMap<>();
  static final Map<Long, TaskCallback> callbacks = new ConcurrentHashMap<>();

  /**
   * Offset 2: complete() twice; offset 4: complete() then fail(); offset 6: complete() inside
   * processAsync, then processAsync throws. Everything else completes once.
   */
  public static final class TwiceTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback)
        throws Exception {
      callbacks.put(e.offset(), callback);
      if (e.offset() == 6) {
        collector.send("out", e.partition(), e.key(), e.value());
        callback.complete();
        throw new IllegalStateException("thrown after completing offset 6");
      }
      pool.execute(() -> {
        collector.send("out", e.partition(), e.key(), e.value());
        callback.complete();
        try {
          if (e.offset() == 2) {
            callback.complete();
          } else if (e.offset() == 4) {
            callback.fail(new RuntimeException("second thoughts"));
          }
        } catch (RuntimeException second) {
          secondCall.put(e.offset(), second);
        }
      });
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newFixedThreadPool(2);
    pool = completer;
    secondCall.clear();
    callbacks.clear();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
  }

  @Test
  void aSecondCompletionThrowsIllegalStateExceptionNamingTheTaskAndTheOffset() throws Exception {
    job = new AsyncJob(tmp, TwiceTask.class, 1)
        .set("task.max.concurrency", 4)
        .fill(10, (p, i) -> null)
        .seal();

    LocalRunner runner = job.runOk();

    assertThat(secondCall.keySet()).containsExactlyInAnyOrder(2L, 4L);
    assertThat(secondCall.get(2L)).as("complete() twice").isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("task Partition 0")
        .hasMessageContaining("in/0 offset 2")
        .hasMessageContaining("twice");
    assertThat(secondCall.get(4L)).as("fail() after complete()")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("task Partition 0")
        .hasMessageContaining("in/0 offset 4");

    // The first completion stands: every message's output once, nothing skipped or failed.
    List<Object> values = job.output(0).stream().map(Envelope::value).collect(Collectors.toList());
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      expected.add("0:" + i);
    }
    assertThat(values).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isZero();
    assertThat(job.checkpointOf(0)).isEqualTo(9);
  }

  @Test
  void aCallbackCompletedLongAgoStillRefusesASecondCompletion() throws Exception {
    job = new AsyncJob(tmp, TwiceTask.class, 1)
        .fill(10, (p, i) -> null)
        .seal();
    job.runOk();

    TaskCallback done = callbacks.get(7L);
    assertThatThrownBy(done::complete).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("task Partition 0").hasMessageContaining("offset 7");
    assertThatThrownBy(() -> done.fail(new RuntimeException("x")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("offset 7");
  }
}
