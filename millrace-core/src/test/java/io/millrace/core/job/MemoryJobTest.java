package io.millrace.core.job;

import static io.millrace.core.job.JobTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.config.JobConfig;
import io.millrace.core.loop.Clock;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Jobs over the memory system, run by {@link LocalRunner}. */
class MemoryJobTest {
  @TempDir Path tmp;
  private final List<String> streams = new ArrayList<>();

  @BeforeEach
  void reset() {
    JobTestSupport.reset();
  }

  @AfterEach
  void dropStreams() {
    streams.forEach(MemoryStreams::drop);
  }

  /** A memory stream of {@code perPartition} messages "<prefix><p>-<i>" in each partition. */
  private MemoryStream stream(String prefix, int partitions, int perPartition, boolean seal) {
    String name = unique(prefix);
    streams.add(name);
    MemoryStream stream = MemoryStreams.create(name, partitions);
    for (int i = 0; i < perPartition; i++) {
      for (int p = 0; p < partitions; p++) {
        stream.append(p, null, prefix + p + "-" + i);
      }
    }
    if (seal) {
      stream.seal();
    }
    return stream;
  }

  private Map<String, String> job(String... inputs) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", unique("memory-job"));
    config.put("task.class", RecordingTask.class.getName());
    config.put("task.inputs", String.join(",", inputs));
    config.put("job.state.dir", tmp.resolve("state").toString());
    return config;
  }

  private static void input(Map<String, String> config, String id, MemoryStream stream) {
    config.put("streams." + id + ".system", "memory");
    config.put("streams." + id + ".physical.name", stream.name());
  }

  private static List<Object> expected(String prefix, int partition, int from, int to) {
    List<Object> values = new ArrayList<>();
    for (int i = from; i < to; i++) {
      values.add(prefix + partition + "-" + i);
    }
    return values;
  }

  @Test
  void offsetDefaultUpcomingReadsOnlyMessagesAppendedAfterStart() throws Exception {
    MemoryStream stream = stream("m", 2, 5, false);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("streams.in.offset.default", "upcoming");
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    runner.start();
    // "Upcoming" is the head when the container takes the task: wait until it has.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (runner.containers().get(0).loop().partitions().size() < 2) {
      assertThat(System.nanoTime()).as("partitions taken").isLessThan(deadline);
      Thread.sleep(1);
    }
    for (int p = 0; p < 2; p++) {
      for (int i = 0; i < 3; i++) {
        stream.append(p, null, "new" + p + "-" + i);
      }
    }
    stream.seal();
    assertThat(runner.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(runner.failure()).isNull();
    assertThat(values("in", 0)).isEqualTo(expected("new", 0, 0, 3));
    assertThat(values("in", 1)).isEqualTo(expected("new", 1, 0, 3));
  }

  @Test
  void offsetDefaultOldestReadsEverythingTheStreamHolds() throws Exception {
    MemoryStream stream = stream("m", 2, 5, false);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("streams.in.offset.default", "oldest");
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    stream.append(0, null, "new0-0");
    stream.seal();
    runner.start();
    assertThat(runner.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(runner.failure()).isNull();
    List<Object> zero = expected("m", 0, 0, 5);
    zero.add("new0-0");
    assertThat(values("in", 0)).isEqualTo(zero);
    assertThat(values("in", 1)).isEqualTo(expected("m", 1, 0, 5));
  }

  @Test
  void bootstrapStreamIsReadToTheEndBeforeAnyMessageOfTheOtherInput() throws Exception {
    MemoryStream table = stream("t", 2, 3_000, true);
    MemoryStream events = stream("e", 2, 3_000, true);
    Map<String, String> config = job("events", "table");
    input(config, "table", table);
    input(config, "events", events);
    config.put("streams.table.bootstrap", "true");

    runOk(config);

    List<Event> seen = messages();
    assertThat(seen).hasSize(12_000);
    int lastTable = -1;
    int firstEvent = Integer.MAX_VALUE;
    for (int i = 0; i < seen.size(); i++) {
      if (seen.get(i).stream().equals("table")) {
        lastTable = i;
      } else {
        firstEvent = Math.min(firstEvent, i);
      }
    }
    assertThat(lastTable).as("all 6000 table messages come first").isEqualTo(5_999);
    assertThat(firstEvent).isEqualTo(6_000);
    for (int p = 0; p < 2; p++) {
      assertThat(values("table", p)).isEqualTo(expected("t", p, 0, 3_000));
      assertThat(values("events", p)).isEqualTo(expected("e", p, 0, 3_000));
    }
  }

  @Test
  void bootstrapStreamStartingAtUpcomingDoesNotHoldBackTheOtherInputs() throws Exception {
    // An unbounded bootstrap stream read from "upcoming" has nothing to read first: the other
    // input must not wait for messages before the start that will never be delivered.
    MemoryStream table = stream("t", 1, 50, false);
    MemoryStream events = stream("e", 1, 20, true);
    Map<String, String> config = job("events", "table");
    input(config, "table", table);
    input(config, "events", events);
    config.put("streams.table.bootstrap", "true");
    config.put("streams.table.offset.default", "upcoming");
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    runner.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (messages().size() < 20 && System.nanoTime() < deadline) {
        Thread.yield();
      }
      assertThat(values("events", 0)).isEqualTo(expected("e", 0, 0, 20));
    } finally {
      runner.requestStop();
      assertThat(runner.await(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(runner.failure()).isNull();
    assertThat(values("table", 0)).isEmpty();
  }

  @Test
  void withoutBootstrapTheInputsInterleave() throws Exception {
    MemoryStream table = stream("t", 2, 3_000, true);
    MemoryStream events = stream("e", 2, 3_000, true);
    Map<String, String> config = job("events", "table");
    input(config, "table", table);
    input(config, "events", events);

    runOk(config);

    List<Event> seen = messages();
    int lastTable = -1;
    int firstEvent = Integer.MAX_VALUE;
    for (int i = 0; i < seen.size(); i++) {
      if (seen.get(i).stream().equals("table")) {
        lastTable = i;
      } else {
        firstEvent = Math.min(firstEvent, i);
      }
    }
    assertThat(firstEvent).isLessThan(lastTable);
  }

  @Test
  void windowTimerFiresEveryTaskWindowMsOfTheInjectedClock() throws Exception {
    MemoryStream stream = stream("w", 1, 100, true);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("task.class", SlowTask.class.getName()); // each message: +1 ms on the clock
    config.put("task.window.ms", "10");
    config.put("task.buffer.max.messages", "1"); // one message per loop cycle

    LocalRunner runner = run(config, JobTestSupport.CLOCK::get);

    assertThat(runner.failure()).isNull();
    List<Long> windows = new ArrayList<>();
    for (Event e : EVENTS) {
      if (e.kind().equals("window")) {
        windows.add(e.clock());
      }
    }
    // 100 messages take 100 ms of the injected clock: a window every 10 ms, none after the end.
    assertThat(windows).hasSize(9);
    for (int i = 1; i < windows.size(); i++) {
      assertThat(windows.get(i) - windows.get(i - 1)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertThat(messages()).hasSize(100);
  }

  @Test
  void withoutTaskWindowMsTheWindowNeverFires() throws Exception {
    MemoryStream stream = stream("w", 1, 100, true);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("task.class", SlowTask.class.getName());
    config.put("task.buffer.max.messages", "1");
    run(config, JobTestSupport.CLOCK::get);
    assertThat(EVENTS).extracting(Event::kind).doesNotContain("window");
  }

  @Test
  void commitTimerCommitsEveryTaskCommitMsOfTheInjectedClock() throws Exception {
    MemoryStream stream = stream("w", 1, 100, true);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("task.class", SlowTask.class.getName());
    config.put("task.commit.ms", "10");
    config.put("task.buffer.max.messages", "1");

    LocalRunner runner = run(config, JobTestSupport.CLOCK::get);

    assertThat(runner.failure()).isNull();
    // 100 ms of the injected clock: 9 timed commits, and the final one at the end.
    assertThat(counter(runner, "commits")).isEqualTo(10);
    assertThat(checkpoint(tmp)).isEqualTo(
        Map.of(new io.millrace.api.StreamPartition("memory", "in", 0), 99L));
  }

  @Test
  void shutdownRequestCommitsAndStopsAnUnboundedJob() throws Exception {
    MemoryStream stream = stream("u", 1, 100, false); // never sealed: the job would run forever
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("task.class", StopAfterTenTask.class.getName());

    LocalRunner runner = runOk(config);

    assertThat(values("in", 0)).isEqualTo(expected("u", 0, 0, 10));
    assertThat(checkpoint(tmp)).isEqualTo(
        Map.of(new io.millrace.api.StreamPartition("memory", "in", 0), 9L));
    assertThat(EVENTS).extracting(Event::kind).doesNotContain("end");
  }

  @Test
  void higherPriorityStreamIsDeliveredFirst() throws Exception {
    MemoryStream low = stream("l", 1, 500, true);
    MemoryStream high = stream("h", 1, 500, true);
    Map<String, String> config = job("low", "high");
    input(config, "low", low);
    input(config, "high", high);
    config.put("streams.high.priority", "10");

    runOk(config);

    List<Event> seen = messages();
    assertThat(seen).hasSize(1_000);
    assertThat(seen.subList(0, 500)).extracting(Event::stream).containsOnly("high");
    assertThat(values("low", 0)).isEqualTo(expected("l", 0, 0, 500));
  }

  @Test
  void twoContainersSplitTheTasksAndProcessEveryMessage() throws Exception {
    MemoryStream stream = stream("c", 4, 2_000, true);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("job.container.count", "2");

    LocalRunner runner = runOk(config);

    assertThat(runner.plan().containerCount()).isEqualTo(2);
    assertThat(runner.containers()).hasSize(2);
    String jobName = config.get("job.name");
    for (int p = 0; p < 4; p++) {
      int partition = p;
      assertThat(values("in", p)).isEqualTo(expected("c", p, 0, 2_000));
      assertThat(messages().stream().filter(e -> e.partition() == partition).map(Event::thread))
          .as("task %d runs in container %d", p, p % 2)
          .containsOnly("millrace-" + jobName + "-container-" + (p % 2));
    }
    assertThat(runner.processed()).isEqualTo(8_000);
    assertThat(new io.millrace.core.checkpoint.FileCheckpointStore(tmp.resolve("state/checkpoints"))
        .file(1)).exists();
    Map<io.millrace.api.StreamPartition, Long> checkpoint = checkpoint(tmp);
    assertThat(checkpoint).hasSize(4);
    assertThat(checkpoint.values()).containsOnly(1_999L);
  }

  @Test
  void containerCountIsCappedByTheTaskCount() throws Exception {
    MemoryStream stream = stream("c", 2, 10, true);
    Map<String, String> config = job("in");
    input(config, "in", stream);
    config.put("job.container.count", "8");
    LocalRunner runner = runOk(config);
    assertThat(runner.plan().containerCount()).isEqualTo(2);
    assertThat(runner.processed()).isEqualTo(20);
  }

  @Test
  void liveGeneratorDeliversEveryMessageExactlyOnceInOrderPerPartition() throws Exception {
    int messages = 300_007;
    int partitions = 3;
    Map<String, String> config = job("gen");
    config.put("streams.gen.system", "memory");
    config.put("streams.gen.physical.name", unique("gen"));
    config.put("streams.gen.generator.messages", String.valueOf(messages));
    config.put("streams.gen.generator.partitions", String.valueOf(partitions));
    config.put("streams.gen.generator.mode", "live");
    config.put("streams.gen.generator.payload.bytes", "8");
    config.put("streams.gen.generator.keys", "1000");
    // Small batches, a short queue and small buffers: back pressure, pauses and resumes.
    config.put("systems.memory.handoff.batch.size", "64");
    config.put("systems.memory.handoff.queue.batches", "4");
    config.put("task.buffer.max.bytes", "4096");
    config.put("task.class", CountingTask.class.getName());
    CountingTask.reset(partitions);

    LocalRunner runner = runOk(config);

    assertThat(CountingTask.errors).isEmpty();
    long total = 0;
    for (int p = 0; p < partitions; p++) {
      long expected = messages / partitions + (p < messages % partitions ? 1 : 0);
      assertThat(CountingTask.next[p]).as("partition %d", p).isEqualTo(expected);
      total += CountingTask.next[p];
    }
    assertThat(total).isEqualTo(messages);
    assertThat(runner.processed()).isEqualTo(messages);
    assertThat(CountingTask.ends.get()).isEqualTo(partitions);
  }

  /** Checks each partition's offsets and keys as they come, without keeping the messages. */
  public static class CountingTask implements io.millrace.api.StreamTask,
      io.millrace.api.EndOfStreamListener {
    static long[] next;
    static final List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    static final java.util.concurrent.atomic.AtomicInteger ends =
        new java.util.concurrent.atomic.AtomicInteger();
    static int partitions;

    static void reset(int partitionCount) {
      partitions = partitionCount;
      next = new long[partitionCount];
      errors.clear();
      ends.set(0);
    }

    @Override
    public void process(io.millrace.api.Envelope e, io.millrace.api.Collector collector,
        io.millrace.api.TaskCoordinator coordinator) {
      int p = e.partition();
      if (e.offset() != next[p] && errors.size() < 10) {
        errors.add("partition " + p + ": expected offset " + next[p] + ", got " + e.offset());
      }
      String key = "key-" + ((e.offset() * partitions + p) % 1000);
      if (!key.equals(e.key()) && errors.size() < 10) {
        errors.add("partition " + p + " offset " + e.offset() + ": key " + e.key());
      }
      next[p] = e.offset() + 1;
    }

    @Override
    public void onEndOfStream(io.millrace.api.Collector collector,
        io.millrace.api.TaskCoordinator coordinator) {
      ends.incrementAndGet();
    }
  }
}
