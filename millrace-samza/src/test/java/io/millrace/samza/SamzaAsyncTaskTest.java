package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.samza.context.Context;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.OutgoingMessageEnvelope;
import org.apache.samza.system.SystemStream;
import org.apache.samza.task.AsyncStreamTask;
import org.apache.samza.task.AsyncStreamTaskFactory;
import org.apache.samza.task.ClosableTask;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.TaskCallback;
import org.apache.samza.task.TaskCoordinator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Samza AsyncStreamTasks: messages in flight together, completed on other threads. */
class SamzaAsyncTaskTest {
  @TempDir Path state;
  static final int MESSAGES = 10;

  /**
   * Holds each message's callback until {@code task.max.concurrency} (4) are in flight (or the
   * last message came), then sends and completes them on another thread, newest first.
   */
  @SuppressWarnings("deprecation") // Samza's ClosableTask, which Samza still calls
  public static final class BatchingTask implements AsyncStreamTask, InitableTask, ClosableTask {
    static volatile String output;
    static final AtomicInteger MOST_IN_FLIGHT = new AtomicInteger();
    private final List<Object[]> held = new ArrayList<>();
    private ExecutorService executor;

    @Override
    public void init(Context context) {
      executor = Executors.newSingleThreadExecutor();
    }

    @Override
    public void processAsync(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator, TaskCallback callback) {
      held.add(new Object[] {envelope, collector, callback});
      MOST_IN_FLIGHT.accumulateAndGet(held.size(), Math::max);
      if (held.size() == 4 || envelope.getOffset().equals(Integer.toString(MESSAGES - 1))) {
        List<Object[]> batch = new ArrayList<>(held);
        held.clear();
        executor.execute(() -> {
          for (int i = batch.size() - 1; i >= 0; i--) {
            IncomingMessageEnvelope e = (IncomingMessageEnvelope) batch.get(i)[0];
            ((MessageCollector) batch.get(i)[1]).send(new OutgoingMessageEnvelope(
                new SystemStream("mem", output), "done " + e.getMessage()));
            ((TaskCallback) batch.get(i)[2]).complete();
          }
        });
      }
    }

    @Override
    public void close() {
      executor.shutdown();
    }
  }

  /** Makes the tasks, as a TaskApplication's factory would. */
  public static final class BatchingTaskFactory implements AsyncStreamTaskFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public AsyncStreamTask createInstance() {
      return new BatchingTask();
    }
  }

  private List<Object> run(Class<?> taskClass) throws Exception {
    String in = SamzaTestJobs.unique("in");
    String out = SamzaTestJobs.unique("out");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    for (int i = 0; i < MESSAGES; i++) {
      input.append(0, null, "m" + i);
    }
    input.seal();
    BatchingTask.output = out;
    BatchingTask.MOST_IN_FLIGHT.set(0);
    Map<String, String> config = SamzaTestJobs.memoryJob(taskClass, in, state);
    config.put("task.max.concurrency", "4");
    config.put("task.outputs", "mem." + out);
    SamzaTestJobs.runToEnd(config);
    List<Object> sent = new ArrayList<>();
    for (Envelope e : MemoryStreams.get(out).messages()) {
      sent.add(e.value());
    }
    return sent;
  }

  private static List<Object> expected() {
    List<Object> all = new ArrayList<>();
    for (int i = 0; i < MESSAGES; i++) {
      all.add("done m" + i);
    }
    return all;
  }

  @Test
  void anAsyncTaskHasUpToTaskMaxConcurrencyMessagesInFlightAndEachCompletesOnce()
      throws Exception {
    assertThat(run(BatchingTask.class)).containsExactlyInAnyOrderElementsOf(expected());
    assertThat(BatchingTask.MOST_IN_FLIGHT.get()).isEqualTo(4);
  }

  @Test
  void anAsyncStreamTaskFactoryMakesTheTasks() throws Exception {
    assertThat(run(BatchingTaskFactory.class)).containsExactlyInAnyOrderElementsOf(expected());
  }

  /**
   * Schedules, from its own thread, a callback per message due at once, and completes the
   * message there; the callback sends what it ran for, and on which thread.
   */
  @SuppressWarnings("deprecation") // Samza's ClosableTask, which Samza still calls
  public static final class SchedulingTask implements AsyncStreamTask, InitableTask,
      ClosableTask {
    static volatile String output;
    private ExecutorService executor;
    private org.apache.samza.scheduler.CallbackScheduler scheduler;

    @Override
    public void init(Context context) {
      executor = Executors.newSingleThreadExecutor();
      scheduler = context.getTaskContext().getCallbackScheduler();
    }

    @Override
    public void processAsync(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator, TaskCallback callback) {
      executor.execute(() -> {
        scheduler.scheduleCallback(envelope.getMessage(), System.currentTimeMillis(),
            (key, out, c) -> out.send(new OutgoingMessageEnvelope(new SystemStream("mem", output),
                "callback " + key + " on " + Thread.currentThread().getName())));
        callback.complete();
      });
    }

    @Override
    public void close() {
      executor.shutdown();
    }
  }

  @Test
  void aCallbackScheduledFromAnAsyncTasksOwnThreadRunsOnTheTasksLoop() throws Exception {
    String in = SamzaTestJobs.unique("in");
    String out = SamzaTestJobs.unique("out");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    for (int i = 0; i < MESSAGES; i++) {
      input.append(0, null, "m" + i);
    }
    SchedulingTask.output = out;
    Map<String, String> config = SamzaTestJobs.memoryJob(SchedulingTask.class, in, state);
    config.put("task.max.concurrency", "4");
    config.put("task.outputs", "mem." + out);
    try (io.millrace.core.embed.RunningJob job = SamzaTestJobs.start(config)) {
      io.millrace.core.testing.Await.until(io.millrace.core.testing.Await.DEADLINE,
          "every message's callback", () -> MemoryStreams.get(out).messages().size() >= MESSAGES);
      job.stop();
    }
    List<Object> sent = new ArrayList<>();
    for (Envelope e : MemoryStreams.get(out).messages()) {
      sent.add(e.value());
    }
    assertThat(sent).hasSize(MESSAGES).allSatisfy(v -> assertThat((String) v)
        .matches("callback m\\d on millrace-.*-container-0"));
    assertThat(sent.stream().map(v -> ((String) v).split(" ")[1]))
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.range(0, MESSAGES).mapToObj(i -> "m" + i).toList());
  }
}
