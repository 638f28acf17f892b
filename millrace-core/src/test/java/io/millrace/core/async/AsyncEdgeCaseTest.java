package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.DeadLetter;
import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.TaskCallback;
import io.millrace.api.config.JobConfig;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.TaskFailedException;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.TestClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paths around the dispatcher's main one: unreadable input between messages in flight, output that
 * fails when it is sent at completion, and failures or time-outs under key order.
 */
class AsyncEdgeCaseTest {
  @TempDir Path tmp;
  private ExecutorService completer;
  private AsyncJob job;

  static volatile ExecutorService pool;
  /** Offsets (of the memory input) whose callback is failed, or never completed. */
  static volatile long failAt = -1;
  static volatile long neverAt = -1;
  /** Send the output of offset {@link #badSendAt} to a partition that does not exist. */
  static volatile long badSendAt = -1;
  static final List<Object> completed = Collections.synchronizedList(new ArrayList<>());
  /** Whether the message at {@link #neverAt} was handed to the task. */
  static volatile boolean neverCalled;

  /** Completes on another thread, sending the value to partition 0 of "out". */
  public static final class EdgeTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      if (e.offset() == neverAt) {
        neverCalled = true;
        return;
      }
      pool.execute(() -> {
        collector.send("out", e.offset() == badSendAt ? 99 : 0, e.key(), e.value());
        if (e.offset() == failAt) {
          callback.fail(new IllegalStateException("no luck with " + e.value()));
          return;
        }
        completed.add(e.value());
        callback.complete();
      });
    }
  }

  @BeforeEach
  void setUp() {
    completer = Executors.newFixedThreadPool(2);
    pool = completer;
    failAt = -1;
    neverAt = -1;
    badSendAt = -1;
    neverCalled = false;
    completed.clear();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    completer.shutdownNow();
    assertThat(completer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    if (job != null) {
      job.close();
    }
  }

  // ---- unreadable input (a JSON file with a bad line) between messages in flight ----

  private static List<String> jsonLines(int count, int bad) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      lines.add(i == bad ? "not json " + i : "{\"n\": " + i + "}");
    }
    return lines;
  }

  private static long lineOffset(List<String> lines, int index) {
    long at = 0;
    for (int i = 0; i < index; i++) {
      at += lines.get(i).getBytes(StandardCharsets.UTF_8).length + 1;
    }
    return at;
  }

  private Map<String, String> fileJob(List<String> lines, String policy) throws Exception {
    Path file = tmp.resolve("in.json");
    Files.write(file, lines, StandardCharsets.UTF_8);
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", AsyncJob.unique("async-file-job"));
    config.put("task.class", EdgeTask.class.getName());
    config.put("task.inputs", "lines");
    config.put("task.max.concurrency", "8");
    config.put("task.error.policy", policy);
    config.put("job.state.dir", tmp.resolve("state").toString());
    config.put("streams.lines.system", "file");
    config.put("streams.lines.physical.name", file.toString());
    config.put("streams.lines.value.serde", "json");
    config.put("task.outputs", "out");
    config.put("streams.out.system", "memory");
    config.put("streams.out.physical.name", AsyncJob.unique("async-file-out"));
    return config;
  }

  private static LocalRunner run(Map<String, String> config) throws InterruptedException {
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    runner.start();
    AsyncJob.await(runner);
    MemoryStreams.drop(config.get("streams.out.physical.name"));
    return runner;
  }

  private Long fileCheckpoint() {
    return new FileCheckpointStore(tmp.resolve("state/checkpoints")).read()
        .get(new StreamPartition("file", "lines", 0));
  }

  @Test
  void unreadableInputUnderSkipIsCountedWhileTheMessagesAroundItAreInFlight() throws Exception {
    List<String> lines = jsonLines(30, 11);
    LocalRunner runner = run(fileJob(lines, "skip"));
    assertThat(runner.failure()).isNull();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    assertThat(completed).hasSize(29);
    assertThat(fileCheckpoint()).isEqualTo(lineOffset(lines, 29));
  }

  @Test
  void unreadableInputUnderDeadLetterIsWrittenAtStageRead() throws Exception {
    List<String> lines = jsonLines(30, 11);
    Map<String, String> config = fileJob(lines, "dead-letter");
    String dlq = AsyncJob.unique("async-file-dlq");
    config.put("task.dead.letter.stream", "dlq");
    config.put("streams.dlq.system", "memory");
    config.put("streams.dlq.physical.name", dlq);
    try {
      LocalRunner runner = run(config);
      assertThat(runner.failure()).isNull();
      List<DeadLetter> dead = MemoryStreams.get(dlq).messages().stream().map(Envelope::value)
          .map(DeadLetter.class::cast).collect(Collectors.toList());
      assertThat(dead).singleElement().satisfies(letter -> {
        assertThat(letter.offset()).isEqualTo(lineOffset(lines, 11));
        assertThat(letter.stage()).isEqualTo("read");
      });
      assertThat(completed).hasSize(29);
      assertThat(fileCheckpoint()).isEqualTo(lineOffset(lines, 29));
    } finally {
      MemoryStreams.drop(dlq);
    }
  }

  @Test
  void unreadableInputUnderFailCommitsNothingFromItOn() throws Exception {
    List<String> lines = jsonLines(30, 11);
    LocalRunner runner = run(fileJob(lines, "fail"));
    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("cannot deserialize")
        .hasMessageContaining("lines/0 offset " + lineOffset(lines, 11));
    Long committed = fileCheckpoint();
    assertThat(committed == null || committed < lineOffset(lines, 11))
        .as("committed %s", committed).isTrue();
  }

  // ---- output that fails when it is sent, at completion ----

  @Test
  void outputThatFailsAtCompletionIsHandledByTheErrorPolicyLikeASynchronousSend()
      throws Exception {
    badSendAt = 4;
    job = new AsyncJob(tmp, EdgeTask.class, 1)
        .set("task.error.policy", "skip")
        .set("task.max.concurrency", 4)
        .fill(10, (p, i) -> null)
        .seal();
    LocalRunner runner = job.run();
    assertThat(runner.failure()).as("a bad send of one message is that message's failure")
        .isNull();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    assertThat(job.output(0)).hasSize(9);
    assertThat(job.checkpointOf(0)).isEqualTo(9);
  }

  @Test
  void outputThatFailsAtCompletionUnderFailNamesTheOffsetAndCommitsWhatCameBefore()
      throws Exception {
    badSendAt = 4;
    job = new AsyncJob(tmp, EdgeTask.class, 1)
        .set("task.max.concurrency", 1)
        .fill(10, (p, i) -> null)
        .seal();
    LocalRunner runner = job.run();
    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class)
        .hasMessageContaining("in/0 offset 4")
        .hasMessageContaining("partition 99");
    assertThat(job.checkpointOf(0)).isEqualTo(3);
  }

  // ---- key order: a failed or timed-out message frees its key ----

  @Test
  void underKeyOrderASkippedFailureFreesItsKeyForTheNextMessage() throws Exception {
    failAt = 3;
    job = new AsyncJob(tmp, EdgeTask.class, 1)
        .set("task.ordering", "key")
        .set("task.max.concurrency", 8)
        .set("task.error.policy", "skip")
        .fill(20, (p, i) -> "same")
        .seal();
    LocalRunner runner = job.runOk();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      if (i != 3) {
        expected.add("0:" + i);
      }
    }
    assertThat(completed).as("one key: strictly in order, 3 left out").isEqualTo(expected);
    assertThat(job.checkpointOf(0)).isEqualTo(19);
  }

  @Test
  void underKeyOrderATimedOutMessageFreesItsKeyForTheNextMessage() throws Exception {
    neverAt = 3;
    TestClock clock = TestClock.manual(); // only offset 3 is out when the test moves it on
    job = new AsyncJob(tmp, EdgeTask.class, 1)
        .set("task.ordering", "key")
        .set("task.max.concurrency", 8)
        .set("task.error.policy", "skip")
        .set("task.callback.timeout.ms", 50)
        .fill(20, (p, i) -> "same")
        .seal();
    LocalRunner runner = job.start(clock);
    try {
      // Key order: offset 3 is handed over once offset 2's completion was applied.
      AsyncJob.awaitCondition("offset 3 handed to the task", () -> neverCalled);
      clock.advance(java.time.Duration.ofMillis(100));
    } catch (Throwable e) {
      runner.requestStop();
      throw e;
    }
    AsyncJob.await(runner);
    assertThat(runner.failure()).isNull();
    assertThat(AsyncJob.counter(runner, "messages-skipped")).isEqualTo(1);
    assertThat(completed).hasSize(19).doesNotContain("0:3");
    assertThat(job.checkpointOf(0)).isEqualTo(19);
  }
}
