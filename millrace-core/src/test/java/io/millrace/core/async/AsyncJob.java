package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.config.JobConfig;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A job over one memory input stream ({@code in}) with one memory output ({@code out}), its state
 * in a test's temporary directory: config, input, running, and what it left behind (output,
 * checkpoint, metrics). Memory streams are process-wide, so every job gets names of its own.
 */
final class AsyncJob implements AutoCloseable {
  private static final AtomicInteger UNIQUE = new AtomicInteger();

  final Map<String, String> config = new LinkedHashMap<>();
  private final Path stateDir;
  private final MemoryStream input;
  private final String outputName;
  private final List<String> streams = new ArrayList<>();

  /** A job running {@code task} over a new input stream of {@code partitions} partitions. */
  AsyncJob(Path tmp, Class<?> task, int partitions) {
    stateDir = tmp.resolve("state");
    String inputName = unique("async-in");
    outputName = unique("async-out");
    streams.add(inputName);
    streams.add(outputName);
    input = MemoryStreams.create(inputName, partitions);
    config.put("job.name", unique("async-job"));
    config.put("task.class", task.getName());
    config.put("task.inputs", "in");
    config.put("task.outputs", "out");
    config.put("job.state.dir", stateDir.toString());
    config.put("streams.in.system", "memory");
    config.put("streams.in.physical.name", inputName);
    config.put("streams.out.system", "memory");
    config.put("streams.out.physical.name", outputName);
  }

  static String unique(String prefix) {
    return prefix + "-" + UNIQUE.incrementAndGet();
  }

  AsyncJob set(String key, Object value) {
    config.put(key, String.valueOf(value));
    return this;
  }

  /** Routes failed messages to a new memory stream {@code dlq}; returns its physical name. */
  String deadLetterStream() {
    String name = unique("async-dlq");
    streams.add(name);
    set("task.error.policy", "dead-letter");
    set("task.dead.letter.stream", "dlq");
    set("streams.dlq.system", "memory");
    set("streams.dlq.physical.name", name);
    return name;
  }

  MemoryStream input() {
    return input;
  }

  /** Adds a second input stream {@code id}, read by the same tasks; returns it. */
  MemoryStream addInput(String id, int partitions) {
    String name = unique("async-" + id);
    streams.add(name);
    MemoryStream stream = MemoryStreams.create(name, partitions);
    config.put("task.inputs", config.get("task.inputs") + "," + id);
    config.put("streams." + id + ".system", "memory");
    config.put("streams." + id + ".physical.name", name);
    return stream;
  }

  /** Appends {@code count} messages to every partition: value "p:i", key from {@code keyOf}. */
  AsyncJob fill(int count, KeyFunction keyOf) {
    for (int p = 0; p < input.partitionCount(); p++) {
      for (int i = 0; i < count; i++) {
        input.append(p, keyOf.key(p, i), p + ":" + i);
      }
    }
    return this;
  }

  AsyncJob seal() {
    input.seal();
    return this;
  }

  /** The key of message {@code i} of partition {@code p}. */
  @FunctionalInterface
  interface KeyFunction {
    Object key(int p, int i);
  }

  /** Plans and starts the job (the checkpoint is read now). */
  LocalRunner start() {
    return start(Clock.SYSTEM);
  }

  /** Plans and starts the job on {@code clock} (a test's, to drive time-outs and commits). */
  LocalRunner start(Clock clock) {
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), clock);
    runner.start();
    return runner;
  }

  /** Runs the job to its end; it may have failed. */
  LocalRunner run() throws InterruptedException {
    LocalRunner runner = start();
    await(runner);
    return runner;
  }

  /** Runs the job to its end; it must succeed. */
  LocalRunner runOk() throws InterruptedException {
    LocalRunner runner = run();
    if (runner.failure() != null) {
      throw new AssertionError("the job failed", runner.failure());
    }
    return runner;
  }

  /** Waits for the job to end, for as long as a busy machine may need ({@link Await#DEADLINE}). */
  static void await(LocalRunner runner) throws InterruptedException {
    assertThat(runner.await(Await.DEADLINE.toNanos(), TimeUnit.NANOSECONDS)).as("the job ends")
        .isTrue();
  }

  /** The checkpoint as the files hold it now. */
  Map<StreamPartition, Long> checkpoint() {
    return new FileCheckpointStore(stateDir.resolve("checkpoints")).read();
  }

  /** A partition's checkpointed offset, or null. */
  Long checkpointOf(int partition) {
    return checkpointOf("in", partition);
  }

  Long checkpointOf(String stream, int partition) {
    return checkpoint().get(new StreamPartition("memory", stream, partition));
  }

  /** The output stream's messages in partition {@code p} (the tasks send to their own partition). */
  List<Envelope> output(int p) {
    MemoryStream out = MemoryStreams.get(outputName);
    return out == null ? List.of() : out.messages(p);
  }

  /** Every output message. */
  List<Envelope> output() {
    MemoryStream out = MemoryStreams.get(outputName);
    return out == null ? List.of() : out.messages();
  }

  /** A counter of container 0, e.g. messages-skipped. */
  static long counter(LocalRunner runner, String name) {
    return runner.plan().metrics().counter("container-0", name).count();
  }

  /** Waits for a condition ({@link Await#DEADLINE} at most); fails if it never holds. */
  static void awaitCondition(String what, BooleanSupplier condition) throws Exception {
    Await.until(Await.DEADLINE, what, condition::getAsBoolean);
  }

  @Override
  public void close() {
    streams.forEach(MemoryStreams::drop);
  }
}
