package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.DeadLetter;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.TaskFailedException;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code task.error.policy} for {@code callback.fail(e)} and for processAsync throwing. */
class AsyncErrorPolicyTest {
  private static final long BAD = 7;

  @TempDir Path tmp;
  private ExecutorService completer;
  private AsyncJob job;

  static volatile ExecutorService pool;
  /** Whether the bad message fails through callback.fail (false: processAsync throws). */
  static volatile boolean failThroughCallback;
  static final List<Long> delivered = Collections.synchronizedList(new ArrayList<>());

  /** The callback of offset 7, failed once offset 12 has completed. */
  static volatile TaskCallback bad;

  /**
   * Fails offset 7 only after offset 12 has completed (so every other message up to 12 completed
   * before it failed); completes the others at once, in order, on one other thread. A fixed task (bad = -1) completes
   * everything.
   */
  public static final class FailingTask implements AsyncStreamTask {
    static volatile long badOffset = BAD;

    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      delivered.add(e.offset());
      if (e.offset() == badOffset) {
        if (!failThroughCallback) {
          throw new IllegalArgumentException("processAsync threw at " + e.offset());
        }
        bad = callback;
        return;
      }
      pool.execute(() -> {
        collector.send("out", e.partition(), e.key(), e.value());
        callback.complete();
        if (e.offset() == BAD + 5 && bad != null) {
          bad.fail(new IllegalStateException("remote said no to 0:" + BAD));
        }
      });
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newSingleThreadExecutor(); // completions in the order of their messages
    pool = completer;
    failThroughCallback = true;
    FailingTask.badOffset = BAD;
    bad = null;
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

  private AsyncJob job(String policy) {
    return job(policy, tmp);
  }

  private AsyncJob job(String policy, Path dir) {
    job = new AsyncJob(dir, FailingTask.class, 1)
        .set("task.max.concurrency", 8)
        .fill(20, (p, i) -> "key" + i)
        .seal();
    if (policy.equals("dead-letter")) {
      job.deadLetterStream();
    } else {
      job.set("task.error.policy", policy);
    }
    return job;
  }

  private List<Object> outputValues() {
    return job.output(0).stream().map(Envelope::value).collect(Collectors.toList());
  }

  private static List<Object> allBut(long missing) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      if (i != missing) {
        values.add("0:" + i);
      }
    }
    return values;
  }

  @Test
  void failStopsTheJobNamingTheOffsetAndCommitsOnlyWhatCameBeforeIt() throws Exception {
    LocalRunner runner = job("fail").run();

    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("task Partition 0")
        .hasMessageContaining("in/0 offset 7")
        .hasMessageContaining("remote said no to 0:7")
        .hasMessageContaining("task.error.policy=fail");
    assertThat(runner.failure().getCause()).isInstanceOf(IllegalStateException.class);
    assertThat(delivered).as("later messages were in flight and completed before 7 failed")
        .contains(8L, 12L);
    assertThat(job.checkpointOf(0)).as("the offset before the failed message").isEqualTo(BAD - 1);

    // Fixed, a restart begins with the message that failed.
    delivered.clear();
    FailingTask.badOffset = -1;
    bad = null;
    job.runOk();
    assertThat(delivered.get(0)).isEqualTo(BAD);
    assertThat(delivered).doesNotContain(0L, 6L);
    assertThat(job.checkpointOf(0)).isEqualTo(19);
  }

  @Test
  void skipCountsTheFailedMessageAndGoesOn() throws Exception {
    LocalRunner runner = job("skip").runOk();

    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    assertThat(outputValues()).containsExactlyInAnyOrderElementsOf(allBut(BAD));
    assertThat(job.checkpointOf(0)).as("committed past the skipped message").isEqualTo(19);
  }

  @Test
  void deadLetterWritesTheFailedMessageWithItsErrorAtStageProcessAndGoesOn() throws Exception {
    AsyncJob j = job("dead-letter");
    String dlq = j.config.get("streams.dlq.physical.name");

    LocalRunner runner = j.runOk();

    List<DeadLetter> dead = MemoryStreams.get(dlq).messages().stream()
        .map(Envelope::value).map(DeadLetter.class::cast).collect(Collectors.toList());
    assertThat(dead).hasSize(1);
    DeadLetter letter = dead.get(0);
    assertThat(letter.stream()).isEqualTo("in");
    assertThat(letter.partition()).isZero();
    assertThat(letter.offset()).isEqualTo(BAD);
    assertThat(letter.key()).isEqualTo("key7");
    assertThat(letter.value()).isEqualTo("0:7");
    assertThat(letter.error()).contains("IllegalStateException").contains("remote said no to 0:7");
    assertThat(letter.stage()).isEqualTo("process");
    assertThat(AsyncJob.counter(runner, "messages-dead-lettered")).isEqualTo(1);
    assertThat(outputValues()).containsExactlyInAnyOrderElementsOf(allBut(BAD));
    assertThat(job.checkpointOf(0)).isEqualTo(19);
  }

  @Test
  void processAsyncThrowingCountsAsCallbackFail() throws Exception {
    failThroughCallback = false;
    LocalRunner runner = job("skip").runOk();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    assertThat(outputValues()).containsExactlyInAnyOrderElementsOf(allBut(BAD));
    assertThat(job.checkpointOf(0)).isEqualTo(19);

    job.close();
    failThroughCallback = false;
    LocalRunner failed = job("fail", tmp.resolve("second")).run();
    assertThat(failed.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("in/0 offset 7")
        .hasMessageContaining("processAsync threw at 7");
    Long committed = job.checkpointOf(0);
    assertThat(committed == null || committed < BAD)
        .as("nothing from the failed message on: %s", committed).isTrue();
  }
}
