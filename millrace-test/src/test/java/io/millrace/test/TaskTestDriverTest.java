package io.millrace.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import io.millrace.api.WindowableTask;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValueStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver runs a task as its job would, on the test's thread and clock. */
class TaskTestDriverTest {
  @TempDir Path tmp;

  /** Sends "key=value@offset/timestamp" for each message; counts keys in store "seen". */
  public static class EchoTask
      implements StreamTask, InitableTask, WindowableTask, EndOfStreamListener, ClosableTask {
    static final List<String> LIFECYCLE = new ArrayList<>();
    private KeyValueStore<String, Long> seen;
    private long initialCount;

    @Override
    public void init(TaskContext context) {
      seen = context.store("seen");
      Long before = seen.get("prefilled");
      initialCount = before == null ? 0 : before;
      LIFECYCLE.add("init " + context.taskName() + " " + initialCount);
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      if ("boom".equals(e.value())) {
        throw new IllegalStateException("exploded");
      }
      if ("commit".equals(e.value())) {
        coordinator.commit(TaskCoordinator.Scope.TASK);
      }
      if ("stop".equals(e.value())) {
        coordinator.shutdown(TaskCoordinator.Scope.TASK);
      }
      if ("elsewhere".equals(e.value())) {
        out.send("nowhere", e.key(), e.value());
      }
      Long n = seen.get((String) e.key());
      seen.put((String) e.key(), n == null ? 1 : n + 1);
      out.send("out", e.key(), e.value() + "@" + e.stream() + "/" + e.partition() + "/"
          + e.offset() + "/" + e.timestamp());
    }

    @Override
    public void window(Collector out, TaskCoordinator coordinator) {
      out.send("windows", null, "window");
    }

    @Override
    public void onEndOfStream(Collector out, TaskCoordinator coordinator) {
      out.send("windows", null, "end");
    }

    @Override
    public void close() {
      LIFECYCLE.add("close");
    }
  }

  private TaskTestDriver.Builder echo() {
    return TaskTestDriver.forTask(EchoTask.class).input("in", "other").output("out", "windows")
        .set("stores.seen.factory", "memory").set("stores.seen.value.serde", "long")
        .set("task.window.ms", "1000")
        .set("task.commit.ms", "5000");
  }

  @Test
  void messagesReachTheTaskInOrderWithTheirOffsetsAndTimestamps() {
    try (TaskTestDriver driver = echo().partition(3).startTime(1_000).build()) {
      driver.pipe("in", "a", "x");
      driver.pipe("in", "b", "y", 42);
      driver.pipe("other", "a", "z");
      assertThat(driver.values("out")).containsExactly("x@in/3/0/1000", "y@in/3/1/42",
          "z@other/3/0/1000");
      assertThat(driver.outputs("out").get(0)).isEqualTo(new Output("out", -1, "a",
          "x@in/3/0/1000", 1_000, Headers.EMPTY, 1_000));
      assertThat(driver.outputs("out").get(1).timestamp()).as("the input's").isEqualTo(42);
      assertThat(driver.lastValues("out")).containsOnlyKeys("a", "b");
      driver.clearOutputs();
      assertThat(driver.outputs("out")).isEmpty();
    }
  }

  /** Sends each message on with a header of its own added, at the message's time plus one. */
  public static class TraceTask implements StreamTask {
    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      out.send("out", -1, e.key(), e.value(), e.timestamp() + 1,
          e.headers().with("seen-by", "trace"));
    }
  }

  @Test
  void headersAndTimestampsReachTheTaskAndItsOutputs() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(TraceTask.class).input("in")
        .output("out").build()) {
      driver.pipe("in", "k", "v", 100, Headers.of("trace-id", "abc"));
      Output o = driver.outputs("out").get(0);
      assertThat(o.timestamp()).isEqualTo(101);
      assertThat(o.headers().lastString("trace-id")).isEqualTo("abc");
      assertThat(o.headers().lastString("seen-by")).isEqualTo("trace");
      assertThat(o.headers().size()).isEqualTo(2);
    }
  }

  @Test
  void theClockFiresWindowsAndCommitsAtTheirIntervalsInTimeOrder() {
    try (TaskTestDriver driver = echo().build()) {
      driver.advanceTime(Duration.ofMillis(999));
      assertThat(driver.values("windows")).isEmpty();
      driver.advanceTime(Duration.ofMillis(1));
      assertThat(driver.outputs("windows")).extracting(Output::sentAt).containsExactly(1000L);
      assertThat(driver.outputs("windows")).extracting(Output::timestamp).containsExactly(-1L);
      driver.advanceTime(Duration.ofMillis(4_500));
      assertThat(driver.outputs("windows")).extracting(Output::sentAt)
          .containsExactly(1000L, 2000L, 3000L, 4000L, 5000L);
      assertThat(driver.commits()).isEqualTo(1); // at 5000
      assertThat(driver.time()).isEqualTo(5_500);
      assertThatThrownBy(() -> driver.advanceTime(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void storesCanBeFilledBeforeInitAndReadAfterInRocksDb() {
    EchoTask.LIFECYCLE.clear();
    try (TaskTestDriver driver = echo().set("stores.seen.factory", "rocksdb")
        .stateDir(tmp).build()) {
      KeyValueStore<String, Long> seen = driver.store("seen");
      seen.put("prefilled", 7L);
      driver.pipe("in", "a", "x");
      driver.pipe("in", "a", "commit");
      assertThat(EchoTask.LIFECYCLE).containsExactly("init Partition 0 7");
      assertThat(seen.get("a")).isEqualTo(2L);
      assertThat(driver.commits()).as("the task's request").isEqualTo(1);
    }
    assertThat(EchoTask.LIFECYCLE).containsExactly("init Partition 0 7", "close");
    assertThat(tmp.resolve("seen/task-0/CURRENT")).isRegularFile(); // RocksDB's, where chosen
  }

  @Test
  void endOfStreamRunsOnceEveryInputHasEndedAndCommits() {
    try (TaskTestDriver driver = echo().build()) {
      driver.pipe("in", "a", "x");
      driver.endOfStream("in");
      assertThat(driver.values("windows")).isEmpty();
      driver.pipe("other", "a", "y");
      driver.endOfStream("other");
      assertThat(driver.values("windows")).containsExactly("end");
      assertThat(driver.commits()).isEqualTo(1);
      assertThatThrownBy(() -> driver.pipe("in", "a", "late"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("input in has ended");
    }
  }

  @Test
  void aTaskThatThrowsIsReportedWithTheMessageItThrewOn() {
    try (TaskTestDriver driver = echo().build()) {
      driver.pipe("in", "a", "x");
      assertThatThrownBy(() -> driver.pipe("in", "a", "boom")).isInstanceOf(TaskFailure.class)
          .hasMessageContaining("in/0@1").hasMessageContaining("exploded")
          .hasCauseInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void badInputsAreNamed() {
    try (TaskTestDriver driver = echo().build()) {
      assertThatThrownBy(() -> driver.pipe("nope", "a", "x"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'nope'")
          .hasMessageContaining("[in, other]");
      assertThatThrownBy(() -> driver.pipe("in", "a", "elsewhere"))
          .isInstanceOf(TaskFailure.class).hasMessageContaining("'nowhere'")
          .hasMessageContaining("task.outputs");
      assertThatThrownBy(() -> driver.store("missing"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'missing'");
      assertThatThrownBy(() -> driver.values("missing"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'missing'");
    }
    assertThatThrownBy(() -> TaskTestDriver.forJob(java.util.Map.of("task.class", "no.Such",
        "task.inputs", "in")).build()).isInstanceOf(ConfigException.class)
        .hasMessageContaining("no.Such");
    assertThatThrownBy(() -> echo().set("stores.seen.factory", "nosuchengine").build())
        .isInstanceOf(ConfigException.class).hasMessageContaining("stores.seen.factory");
  }

  @Test
  void aShutdownRequestEndsWhatTheTaskIsGiven() {
    try (TaskTestDriver driver = echo().build()) {
      driver.pipe("in", "a", "stop");
      assertThat(driver.shutdownRequested()).isTrue();
      assertThatThrownBy(() -> driver.pipe("in", "a", "x"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("shut down");
    }
  }

  @Test
  void aJobFileGivesTheTaskItsKeys() throws Exception {
    Path job = tmp.resolve("job.properties");
    Files.writeString(job, String.join("\n",
        "job.name=from-file",
        "task.class=" + EchoTask.class.getName(),
        "task.inputs=in,other",
        "task.outputs=out,windows",
        "streams.in.system=kafka",
        "systems.kafka.bootstrap.servers=127.0.0.1:1",
        "stores.seen.factory=memory",
        "stores.seen.value.serde=long",
        "stores.seen.changelog=kafka.seen-changelog",
        "task.window.ms=10", ""));
    try (TaskTestDriver driver = TaskTestDriver.forJob(job).build()) {
      driver.pipe("in", "a", "x"); // no broker is asked for anything
      driver.advanceTime(Duration.ofMillis(10));
      assertThat(driver.values("windows")).containsExactly("window");
    }
  }

  /** Looks each message up on an executor of its own; completes the call from there. */
  public static class LookupTask implements AsyncStreamTask, ClosableTask {
    private final ExecutorService service = Executors.newSingleThreadExecutor();

    @Override
    public void processAsync(Envelope e, Collector out, TaskCoordinator c, TaskCallback callback) {
      service.execute(() -> {
        if ("bad".equals(e.value())) {
          callback.fail(new IllegalArgumentException("no such user"));
          return;
        }
        out.send("out", e.key(), e.value() + "!");
        callback.complete();
      });
    }

    @Override
    public void close() throws InterruptedException {
      service.shutdown();
      service.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anAsyncCallsOutputShowsOnceTheTaskCompletesIt() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(LookupTask.class).input("in")
        .output("out").build()) {
      driver.pipe("in", "a", "x");
      driver.pipe("in", "b", "y");
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.values("out")).containsExactly("x!", "y!");
      assertThat(driver.inFlight()).isZero();

      driver.pipe("in", "c", "bad");
      assertThatThrownBy(() -> driver.awaitCalls(Duration.ofSeconds(10)))
          .isInstanceOf(TaskFailure.class).hasMessageContaining("in/0@2")
          .hasMessageContaining("no such user");
    }
  }

  @Test
  void heldCallsShowTheirOutputOnlyWhenTheTestReleasesThemInItsOwnOrder() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(LookupTask.class).input("in")
        .output("out").set("task.max.concurrency", "2").holdCalls().build()) {
      driver.pipe("in", "a", "first");
      driver.pipe("in", "b", "second");
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.values("out")).isEmpty();
      assertThat(driver.inFlight()).isEqualTo(2);

      List<TaskTestDriver.Call> held = driver.heldCalls();
      assertThat(held).allMatch(TaskTestDriver.Call::completedByTask);
      held.get(1).release();
      assertThat(driver.values("out")).containsExactly("second!");
      held.get(0).release();
      assertThat(driver.values("out")).containsExactly("second!", "first!");
      assertThat(driver.inFlight()).isZero();
    }
  }

  @Test
  void inputsCannotEndWhileCallsAreHeld() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(LookupTask.class).input("in")
        .output("out").holdCalls().build()) {
      driver.pipe("in", "a", "x");
      assertThatThrownBy(() -> driver.endOfStream("in"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("not released");
    }
  }

  /** Every 300 ms sends "tick", and once, 500 ms after init, "once"; windows every 1000 ms. */
  public static class ScheduleTask implements StreamTask, InitableTask, WindowableTask {
    @Override
    public void init(TaskContext context) {
      context.scheduleEvery(Duration.ofMillis(300), (out, c) -> out.send("out", null, "tick"));
      context.schedule(Duration.ofMillis(500), (out, c) -> out.send("out", null, "once"));
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {}

    @Override
    public void window(Collector out, TaskCoordinator coordinator) {
      out.send("out", null, "window");
    }
  }

  @Test
  void scheduledCallbacksFireWithWindowsInTimeOrderAsTheClockAdvances() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(ScheduleTask.class).input("in")
        .output("out").set("task.window.ms", "1000").build()) {
      driver.advanceTime(Duration.ofMillis(1_000));
      assertThat(driver.outputs("out")).extracting(o -> o.value() + "@" + o.sentAt())
          .containsExactly("tick@300", "once@500", "tick@600", "tick@900", "window@1000");
      assertThatThrownBy(() -> driver.advanceTime(Duration.ofMillis(-5)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** Not public, as a task nested in a user's test often is; sends "idle" when the loop idles. */
  static class QuietTask implements StreamTask, InitableTask {
    private Collector idleOut;

    @Override
    public void init(TaskContext context) {
      context.whenIdle(() -> idleOut.send("out", null, "idle"));
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      idleOut = out;
    }
  }

  @Test
  void aTaskClassThatIsNotPublicRunsAndItsIdleActionsRunWhenTheTestIdles() {
    try (TaskTestDriver driver = TaskTestDriver.forTask(QuietTask.class).input("in")
        .output("out").build()) {
      driver.pipe("in", "a", "x");
      assertThat(driver.values("out")).isEmpty();
      driver.idle();
      driver.idle();
      assertThat(driver.values("out")).containsExactly("idle", "idle");
    }
  }
}
