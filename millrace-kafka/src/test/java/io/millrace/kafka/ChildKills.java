package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.await;
import static io.millrace.kafka.KafkaTestSupport.childLog;
import static io.millrace.kafka.KafkaTestSupport.start;
import static io.millrace.kafka.KafkaTestSupport.startChild;
import static io.millrace.kafka.KafkaTestSupport.stop;
import static io.millrace.kafka.KafkaTestSupport.threadDump;

import io.millrace.api.StreamPartition;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.testing.SteadyInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A job under exactly-once started in a child JVM and killed (SIGKILL) again and again while its
 * input keeps arriving, each run killed at a random moment after its committed checkpoint moved
 * past the previous run's; then run in this JVM until it has processed every input. Progress is
 * read as a reader of committed data reads it: the job's checkpoint of input stream "in".
 */
final class ChildKills {
  /** Something to check about run {@code run} once it has started and made progress. */
  interface RunCheck {
    void check(int run) throws Exception;
  }

  private final Map<String, String> config;
  private final Path dir;
  private final int partitions;
  private final String[] jvmOptions;

  /**
   * @param config the job's configuration (input stream id "in", checkpoints on Kafka)
   * @param dir where each run's properties and log go ({@code run-<n>/})
   * @param partitions the input's partitions
   * @param jvmOptions the children's JVM options (loggers at debug, say)
   */
  ChildKills(Map<String, String> config, Path dir, int partitions, String... jvmOptions) {
    this.config = config;
    this.dir = dir;
    this.partitions = partitions;
    this.jvmOptions = jvmOptions;
  }

  /** Starts and kills the job {@code kills} times; {@code check} looks at each run first. */
  void killRepeatedly(int kills, SteadyInput input, RunCheck check) throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    long[] before = committed();
    for (int run = 0; run < kills; run++) {
      Path runDir = Files.createDirectories(dir.resolve("run-" + run));
      Process child = startChild(config, runDir, jvmOptions);
      try {
        awaitProgress(child, runDir, before, 1);
        check.check(run);
        // The kill lands after a random share of up to 1,600 more records (about 400 ms of input,
        // four commit intervals): anywhere in a transaction, mostly with one open.
        long killAt = input.total() + random.nextInt(1_600);
        await(Duration.ofSeconds(30), "the input writer reaches record " + killAt,
            () -> input.total() >= killAt);
      } finally {
        child.destroyForcibly(); // SIGKILL: no final commit
        child.waitFor(30, TimeUnit.SECONDS);
      }
      before = committed();
    }
  }

  /** The log of run {@code run}. */
  String runLog(int run) {
    return childLog(dir.resolve("run-" + run));
  }

  /** Waits until every partition's committed checkpoint is {@code by} past {@code from}. */
  void awaitProgress(Process child, Path runDir, long[] from, long by)
      throws InterruptedException {
    await(Duration.ofSeconds(90), "pid " + child.pid() + " commits " + by + " past "
        + Arrays.toString(from), () -> {
          if (!child.isAlive()) {
            throw new AssertionError("pid " + child.pid() + " died: " + childLog(runDir));
          }
          long[] now = committed();
          for (int p = 0; p < partitions; p++) {
            if (now[p] < from[p] + by) {
              return false;
            }
          }
          return true;
        }, () -> threadDump(child, runDir));
  }

  /** Runs the job in this JVM until it has processed everything written, then stops it. */
  void finish(long[] written) throws Throwable {
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(120), "every input processed", () -> {
      long[] now = committed();
      for (int p = 0; p < partitions; p++) {
        if (now[p] < written[p]) {
          return false;
        }
      }
      return true;
    });
    stop(runner);
  }

  /** Each input partition's committed checkpoint plus one (0: none), as readers see it. */
  long[] committed() {
    long[] done = new long[partitions];
    Map<StreamPartition, Long> checkpoint = KafkaExactlyOnceTest.readCommittedCheckpoint(config);
    for (int p = 0; p < partitions; p++) {
      done[p] = checkpoint.getOrDefault(new StreamPartition("kafka", "in", p), -1L) + 1;
    }
    return done;
  }
}
