package io.millrace.bench.peers;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.samza.application.TaskApplication;
import org.apache.samza.serializers.NoOpSerde;
import org.apache.samza.task.StreamTaskFactory;
import org.apache.samza.test.framework.TestRunner;
import org.apache.samza.test.framework.system.descriptors.InMemoryInputDescriptor;
import org.apache.samza.test.framework.system.descriptors.InMemorySystemDescriptor;

/**
 * Millrace's container benchmark on Apache Samza 1.8: a counting task over N preloaded messages in
 * P partitions, one container thread, run by samza-test's {@link TestRunner} (a real
 * SamzaContainer and RunLoop over Samza's in-memory system).
 *
 * <p>Usage: {@code SamzaContainerBench [--messages N] [--partitions P] [--timers on|off]}.
 * The timed interval runs from the first {@code process()} call to the N-th, so it excludes input
 * generation, container start-up and shutdown (those are reported on stderr).
 */
public final class SamzaContainerBench {
  private static final String SYSTEM = "bench";
  private static final String STREAM = "input";
  private static final Duration TIMEOUT = Duration.ofHours(1);

  private SamzaContainerBench() {
  }

  public static void main(String[] args) {
    // Before Samza's first logger: its INFO output (config dumps, per-partition registration) is noise here.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    BenchArgs options = new BenchArgs(args, Set.of("messages", "partitions", "timers"));
    long messages = options.positiveLong("messages", 10_000_000L);
    int partitions = Math.toIntExact(options.positiveLong("partitions", 8));
    boolean timers = options.onOff("timers", false);

    double seconds = run(messages, partitions, timers);
    System.out.printf(Locale.ROOT,
        "RESULT samza-container msgs_per_sec=%.1f messages=%d partitions=%d timers=%s seconds=%.3f%n",
        messages / seconds, messages, partitions, timers ? "on" : "off", seconds);
  }

  /** Runs the job once and returns the seconds from the first message processed to the last. */
  static double run(long messages, int partitions, boolean timers) {
    Progress progress = new Progress(messages);
    // No serde: the task gets the very key and value objects that were loaded.
    InMemoryInputDescriptor<byte[]> input =
        new InMemorySystemDescriptor(SYSTEM).getInputDescriptor(STREAM, new NoOpSerde<>());
    TaskApplication app = descriptor -> {
      descriptor.withInputStream(input);
      descriptor.withTaskFactory((StreamTaskFactory) () -> new CountingTask(progress));
    };
    Map<Integer, InputPartition> data = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      data.put(p, InputPartition.of(SYSTEM, STREAM, messages, partitions, p));
    }

    long start = System.nanoTime();
    TestRunner runner = TestRunner.of(app)
        .addConfig("metrics.timer.enabled", Boolean.toString(timers))
        // Tasks run on the container's run-loop thread: one thread, as in Millrace's benchmark.
        .addConfig("job.container.thread.pool.size", "0")
        .addConfig("job.jmx.enabled", "false") // it prints its URL to stdout and is not needed
        .addInputStream(input, data); // generates the input and stores it in the in-memory system
    long loaded = System.nanoTime();
    System.gc(); // as Millrace's ContainerBench does before its clock: loading's garbage is not the job's
    runner.run(TIMEOUT); // returns once every partition has reached end-of-stream
    long finished = System.nanoTime();

    if (!progress.reachedTarget()) {
      throw new IllegalStateException("processed " + progress.processed() + " of " + messages + " messages");
    }
    System.err.printf(Locale.ROOT,
        "samza-container: input %.2f s, gc + start-up (run() to first message) %.2f s, processing %.3f s"
            + " (second half alone: %.0f msgs/s), shutdown %.2f s%n",
        seconds(start, loaded), seconds(loaded, progress.firstNanos()),
        seconds(progress.firstNanos(), progress.targetNanos()),
        progress.secondHalfRate(),
        seconds(progress.targetNanos(), finished));
    return seconds(progress.firstNanos(), progress.targetNanos());
  }

  private static double seconds(long fromNanos, long toNanos) {
    return (toNanos - fromNanos) / 1e9;
  }
}
