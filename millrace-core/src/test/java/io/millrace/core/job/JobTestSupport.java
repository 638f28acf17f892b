package io.millrace.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.WindowableTask;
import io.millrace.api.config.JobConfig;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.loop.Clock;
import io.millrace.core.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/** Test tasks, a shared event log they write to, and helpers to run jobs. */
final class JobTestSupport {
  private JobTestSupport() {}

  private static final AtomicInteger UNIQUE = new AtomicInteger();

  /** A name no other test uses (memory streams are process-wide). */
  static String unique(String prefix) {
    return prefix + "-" + UNIQUE.incrementAndGet();
  }

  /** What a test task saw: a message, an end of stream or a window. */
  record Event(String kind, int task, String stream, int partition, long offset, Object key,
      Object value, String thread, long clock) {
    boolean isMessage() {
      return kind.equals("message");
    }
  }

  /** The events of the running test, in the order the tasks recorded them. */
  static final List<Event> EVENTS = Collections.synchronizedList(new ArrayList<>());

  /** The clock a test injects into the run loop; tasks may move it. */
  static final AtomicLong CLOCK = new AtomicLong();

  /** Line values at which {@link CommitThenCrashTask} commits and then crashes. */
  static volatile String commitAt;
  static volatile String crashAt;

  static void reset() {
    EVENTS.clear();
    CLOCK.set(1_000_000_000L);
    commitAt = null;
    crashAt = null;
  }

  static List<Event> messages() {
    synchronized (EVENTS) {
      return EVENTS.stream().filter(Event::isMessage).collect(Collectors.toList());
    }
  }

  static List<Object> values(String stream, int partition) {
    return messages().stream()
        .filter(e -> e.stream().equals(stream) && e.partition() == partition)
        .map(Event::value)
        .collect(Collectors.toList());
  }

  static List<Object> allValues() {
    return messages().stream().map(Event::value).collect(Collectors.toList());
  }

  static List<Event> eventsOfTask(int task) {
    synchronized (EVENTS) {
      return EVENTS.stream().filter(e -> e.task() == task).collect(Collectors.toList());
    }
  }

  /** Records every message and the end of stream; forwards values to output "out" if listed. */
  public static class RecordingTask
      implements StreamTask, InitableTask, EndOfStreamListener, WindowableTask {
    int partition;
    boolean forward;

    @Override
    public void init(TaskContext context) {
      partition = context.partitionNumber();
      forward = List.of(context.config().getOrDefault("task.outputs", "").split(",")).contains("out");
    }

    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      record("message", e);
      if (forward) {
        collector.send("out", e.partition(), null, e.value());
      }
    }

    void record(String kind, Envelope e) {
      EVENTS.add(new Event(kind, partition, e.stream(), e.partition(), e.offset(), e.key(),
          e.value(), Thread.currentThread().getName(), CLOCK.get()));
    }

    @Override
    public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
      EVENTS.add(new Event("end", partition, null, -1, -1, null, null,
          Thread.currentThread().getName(), CLOCK.get()));
    }

    @Override
    public void window(Collector collector, TaskCoordinator coordinator) {
      EVENTS.add(new Event("window", partition, null, -1, -1, null, null,
          Thread.currentThread().getName(), CLOCK.get()));
    }
  }

  /** Throws on any value containing "BAD". */
  public static class FailingTask extends RecordingTask {
    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      if (String.valueOf(e.value()).contains("BAD")) {
        throw new IllegalStateException("bad line " + e.value());
      }
      super.process(e, collector, coordinator);
    }
  }

  /** A hard stop that no error policy handles, like a kill: not an Exception. */
  static final class SimulatedCrash extends Error {
    SimulatedCrash(String message) {
      super(message);
    }
  }

  /** Commits after the line {@link #commitAt}, and dies hard at the line {@link #crashAt}. */
  public static class CommitThenCrashTask extends RecordingTask {
    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      if (e.value().equals(crashAt)) {
        throw new SimulatedCrash("killed at " + e.value());
      }
      super.process(e, collector, coordinator);
      if (e.value().equals(commitAt)) {
        coordinator.commit(TaskCoordinator.Scope.TASK);
      }
    }
  }

  /** Each message takes one millisecond of the injected clock. */
  public static class SlowTask extends RecordingTask {
    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      CLOCK.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
      super.process(e, collector, coordinator);
    }
  }

  /** Asks its container to commit and stop after the message at offset 9. */
  public static class StopAfterTenTask extends RecordingTask {
    @Override
    public void process(Envelope e, Collector collector, TaskCoordinator coordinator) {
      super.process(e, collector, coordinator);
      if (e.offset() == 9) {
        coordinator.shutdown(TaskCoordinator.Scope.CONTAINER);
      }
    }
  }

  /** A job over input files: task.inputs=lines on the file system, state in {@code tmp/state}. */
  static Map<String, String> fileJob(Path tmp, Path input, Class<? extends StreamTask> task) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", "test-job");
    config.put("task.class", task.getName());
    config.put("task.inputs", "lines");
    config.put("task.commit.ms", "-1");
    config.put("streams.lines.system", "file");
    config.put("streams.lines.physical.name", input.toString());
    config.put("job.state.dir", tmp.resolve("state").toString());
    return config;
  }

  /**
   * A job of {@code task} reading memory stream {@code in} as input "in" and writing memory stream
   * {@code out} (one partition) as output "out".
   */
  static Map<String, String> memoryJob(Path tmp, String name, Class<?> task, String in,
      String out) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("task.class", task.getName());
    config.put("task.inputs", "in");
    config.put("task.outputs", "out");
    config.put("streams.in.system", "memory");
    config.put("streams.in.physical.name", in);
    config.put("streams.out.system", "memory");
    config.put("streams.out.physical.name", out);
    config.put("streams.out.partitions", "1");
    config.put("job.state.dir", tmp.resolve("state").toString());
    return config;
  }

  static void addFileOutput(Map<String, String> config, Path dir) {
    config.put("task.outputs", "out");
    config.put("streams.out.system", "file");
    config.put("streams.out.physical.name", dir.toString());
  }

  /** Writes lines (each ended by '\n') and returns the file. */
  static Path writeLines(Path file, List<String> lines) throws IOException {
    Files.createDirectories(file.getParent());
    StringBuilder text = new StringBuilder();
    for (String line : lines) {
      text.append(line).append('\n');
    }
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  static List<String> numbered(String prefix, int count) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      lines.add(String.format("%s-%04d", prefix, i));
    }
    return lines;
  }

  /** The byte offset of each line of a file written by {@link #writeLines}. */
  static List<Long> lineOffsets(List<String> lines) {
    List<Long> offsets = new ArrayList<>();
    long at = 0;
    for (String line : lines) {
      offsets.add(at);
      at += line.getBytes(StandardCharsets.UTF_8).length + 1;
    }
    return offsets;
  }

  /** Plans and runs a job to its end with the given clock; returns the finished runner. */
  static LocalRunner run(Map<String, String> config, Clock clock) throws InterruptedException {
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    LocalRunner runner = new LocalRunner(plan, clock);
    runner.start();
    assertThat(runner.await(Await.DEADLINE.toNanos(), TimeUnit.NANOSECONDS)).as("the job ends")
        .isTrue();
    return runner;
  }

  static LocalRunner run(Map<String, String> config) throws InterruptedException {
    return run(config, Clock.SYSTEM);
  }

  /** Runs a job that must succeed. */
  static LocalRunner runOk(Map<String, String> config) throws InterruptedException {
    LocalRunner runner = run(config);
    if (runner.failure() != null) {
      throw new AssertionError("the job failed", runner.failure());
    }
    return runner;
  }

  static Map<StreamPartition, Long> checkpoint(Path tmp) {
    return new FileCheckpointStore(tmp.resolve("state").resolve("checkpoints")).read();
  }

  static StreamPartition lines(int partition) {
    return new StreamPartition("file", "lines", partition);
  }

  static long counter(LocalRunner runner, String name) {
    return runner.plan().metrics().counter("container-0", name).count();
  }
}
