package io.millrace.core.job;

import static io.millrace.core.job.JobTestSupport.run;
import static io.millrace.core.job.JobTestSupport.runOk;
import static io.millrace.core.job.JobTestSupport.unique;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Cancellable;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Callbacks a task schedules run on its loop thread, in time order, until cancelled. */
class ScheduledCallbackTest {
  @TempDir Path tmp;
  private final List<String> streams = new ArrayList<>();

  @AfterEach
  void drop() {
    streams.forEach(MemoryStreams::drop);
  }

  /**
   * Ticks every 10 ms; the third tick cancels the ticking and schedules one last callback 10 ms
   * on, which stops the container (the input never ends on its own).
   */
  public static class TickingTask implements StreamTask, InitableTask {
    private TaskContext context;
    private Cancellable ticking;
    private int ticks;

    @Override
    public void init(TaskContext context) {
      this.context = context;
      ticking = context.scheduleEvery(Duration.ofMillis(10), (out, coordinator) -> {
        ticks++;
        out.send("out", 0, null, "tick" + ticks + " on " + Thread.currentThread().getName());
        if (ticks == 3) {
          ticking.cancel();
          this.context.schedule(Duration.ofMillis(10), (o, c) -> {
            o.send("out", 0, null, "last");
            c.shutdown(TaskCoordinator.Scope.CONTAINER);
          });
        }
      });
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {}
  }

  /**
   * Echoes each message, and 20 ms after start sends "tick" from a callback and stops: the echo
   * carries its input's timestamp, the tick (sent after a message was delivered) none.
   */
  public static class EchoThenTickTask implements StreamTask, InitableTask {
    @Override
    public void init(TaskContext context) {
      context.schedule(Duration.ofMillis(20), (out, coordinator) -> {
        out.send("out", 0, null, "tick");
        coordinator.shutdown(TaskCoordinator.Scope.CONTAINER);
      });
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      out.send("out", 0, e.key(), e.value());
    }
  }

  /** Its callback throws. */
  public static class FailingCallbackTask implements StreamTask, InitableTask {
    @Override
    public void init(TaskContext context) {
      context.schedule(Duration.ZERO, (out, coordinator) -> {
        throw new IllegalStateException("callback exploded");
      });
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {}
  }

  /** Its callback's send finds the container fenced, as a Kafka producer's would. */
  public static class FencedCallbackTask implements StreamTask, InitableTask {
    @Override
    public void init(TaskContext context) {
      context.schedule(Duration.ZERO, (out, coordinator) -> {
        throw new CommitFencedException("the broker aborted transaction t-0", null);
      });
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {}
  }

  /** Schedules in the past. */
  public static class PastTask implements StreamTask, InitableTask {
    @Override
    public void init(TaskContext context) {
      context.schedule(Duration.ofMillis(-1), (out, coordinator) -> { });
    }

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {}
  }

  private Map<String, String> job(Class<?> task, String out) {
    String in = unique("ticks-in");
    streams.add(in);
    MemoryStreams.create(in, 1); // never sealed: only the callback ends the job
    Map<String, String> config = JobTestSupport.memoryJob(tmp, unique("ticks"), task, in, out);
    return config;
  }

  @Test
  void periodicAndOneShotCallbacksRunOnTheLoopThreadInTimeOrderUntilCancelled()
      throws Exception {
    String out = unique("ticks-out");
    streams.add(out);
    Map<String, String> config = job(TickingTask.class, out);

    runOk(config);

    List<Envelope> sent = MemoryStreams.get(out).messages(0);
    String loopThread = "millrace-" + config.get("job.name") + "-container-0";
    assertThat(sent).extracting(Envelope::value).containsExactly("tick1 on " + loopThread,
        "tick2 on " + loopThread, "tick3 on " + loopThread, "last");
    assertThat(sent).extracting(Envelope::timestamp).containsOnly(-1L);
  }

  @Test
  void aCallbackAfterAMessageSendsWithNoTimestampWhileTheMessagesOutputCarriesItsOwn()
      throws Exception {
    String out = unique("ticks-out");
    streams.add(out);
    Map<String, String> config = job(EchoThenTickTask.class, out);
    MemoryStreams.get(config.get("streams.in.physical.name"))
        .append(0, "k", "echo", 7_000, io.millrace.api.Headers.EMPTY);

    runOk(config);

    assertThat(MemoryStreams.get(out).messages(0))
        .extracting(e -> e.value() + "@" + e.timestamp())
        .containsExactly("echo@7000", "tick@-1");
  }

  @Test
  void aCallbackThatThrowsFailsTheJobNamingTheTask() throws Exception {
    String out = unique("ticks-out");
    streams.add(out);
    var runner = run(job(FailingCallbackTask.class, out));
    assertThat(runner.failure()).hasMessageContaining("Partition 0")
        .hasMessageContaining("scheduled callback").hasMessageContaining("callback exploded");
  }

  @Test
  void aCallbackWhoseSendFindsTheContainerFencedLosesEveryTaskInsteadOfFailingTheTask()
      throws Exception {
    String out = unique("ticks-out");
    streams.add(out);
    var runner = run(job(FencedCallbackTask.class, out));
    assertThat(runner.failure()).hasMessageContaining("lost its tasks")
        .hasMessageContaining("fenced").hasMessageNotContaining("scheduled callback");
  }

  @Test
  void aCallbackScheduledInThePastIsRefusedAtTheCall() throws Exception {
    String out = unique("ticks-out");
    streams.add(out);
    var runner = run(job(PastTask.class, out));
    assertThat(runner.failure()).hasMessageContaining("init")
        .hasMessageContaining("cannot be scheduled in the past");
  }
}
