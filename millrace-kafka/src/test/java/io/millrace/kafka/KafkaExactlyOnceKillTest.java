package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.kafka.dev.DevBroker;
import io.millrace.kafka.testing.SteadyInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once under SIGKILL: a job in a child JVM is killed at random points, 20 times, while its
 * input keeps arriving, and restarted each time. A reader of committed data then sees every input
 * exactly once in the output, and a changelogged count ends equal to a clean run's; each restart
 * of the count restores from its local files and the changelog's tail, never in full. A paused
 * process (SIGSTOP) whose job was started again elsewhere writes nothing visible once it resumes.
 */
class KafkaExactlyOnceKillTest {
  static final int PARTITIONS = 2;
  static final int KILLS = 20;
  static final int KEYS = 300;
  /**
   * The children log the offsets each commit takes, the checkpoint each writes and the hold of the
   * loop's sends around each transaction's commit: beside the transactions in the broker's log
   * ({@link TransactionHistory}), what a duplicate's story needs.
   */
  static final String[] COMMIT_LOG = {
      "-Dorg.slf4j.simpleLogger.log.io.millrace.core.commit.Committer=debug",
      "-Dorg.slf4j.simpleLogger.log.io.millrace.kafka.checkpoint.KafkaCheckpointStore=debug",
      "-Dorg.slf4j.simpleLogger.log.io.millrace.kafka.produce.ContainerTransaction=debug"};
  @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ON_SUCCESS) Path tmp;

  /** Copies each record to the same partition of "out". */
  public static final class PassThroughTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      collector.send("out", envelope.partition(), envelope.key(), envelope.value());
    }
  }

  /** Records "p:i" keyed k(i mod KEYS), to every partition until stopped. */
  private static SteadyInput input(DevBroker broker, String topic) {
    return new SteadyInput(broker.bootstrapServers(), topic, PARTITIONS, 20,
        (p, i) -> "k" + (i % KEYS));
  }

  private Map<String, String> exactlyOnce(Map<String, String> config) {
    config.put("task.processing.guarantee", "exactly-once");
    config.put("task.checkpoint.system", "kafka");
    return config;
  }

  @Test
  void aPassThroughKilledTwentyTimesWritesEveryInputExactlyOnce() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("eos-kill-in");
    String out = topic("eos-kill-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    Map<String, String> config = exactlyOnce(job(broker.bootstrapServers(), "eos-kill-" + in,
        PassThroughTask.class, in, out, tmp.resolve("state").toString()));
    long[] written;
    ChildKills kills = new ChildKills(config, tmp, PARTITIONS, COMMIT_LOG);
    try (SteadyInput writer = input(broker, in)) {
      kills.killRepeatedly(KILLS, writer, run -> {});
      written = writer.stop();
    }
    kills.finish(written);

    long total = assertEveryInputOnce(broker, config, in, out, written);
    // The kills did land mid-transaction: a reader of uncommitted data sees aborted records.
    assertThat(readAll(broker.bootstrapServers(), out, false).size()).isGreaterThan((int) total);
  }

  @Test
  void aChangelogedCountKilledTwentyTimesEndsEqualToACleanRunAndRestoresOnlyTheTail()
      throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("eos-count-in");
    String changelog = topic("eos-counts-changelog");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    Map<String, String> config = exactlyOnce(job(broker.bootstrapServers(), "eos-count-" + in,
        KafkaStoreKillTest.CountingTask.class, in, null, tmp.resolve("state").toString()));
    config.put("stores.counts.factory", "rocksdb");
    config.put("stores.counts.value.serde", "long");
    config.put("stores.counts.changelog", "kafka." + changelog);
    config.put("stores.counts.cache.size", "100"); // evictions, so flushes between commits too
    config.put("stores.counts.write.batch.size", "50");
    long[] written;
    ChildKills kills = new ChildKills(config, tmp, PARTITIONS, COMMIT_LOG);
    try (SteadyInput writer = input(broker, in)) {
      kills.killRepeatedly(KILLS, writer, run -> {
        if (run == 0) {
          return; // the first run starts empty
        }
        if (run == 1 && kills.runLog(run).contains("(local -1,")) {
          return; // the first run was killed before it marked any local files (a busy machine)
        }
        // Each kill leaves aborted changelog records after what the local files hold: the restart
        // reads that tail (and applies only what committed), never the whole changelog.
        assertThat(kills.runLog(run)).as("restart %s restores", run)
            .contains("(0 in full, the rest from their local files)")
            .doesNotContainPattern("\\([1-9]\\d* in full");
      });
      written = writer.stop();
    }
    kills.finish(written);

    // Each task counts its own partition's keys: "partition/key" -> count.
    Map<String, Long> expected = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (long i = 0; i < written[p]; i++) {
        expected.merge(p + "/k" + (i % KEYS), 1L, Long::sum);
      }
    }
    Map<String, Long> counts = new HashMap<>();
    // Where a key's count went down in the changelog (it must only go up, by one): the offsets
    // of a state restored short of what it held, to set beside each run's restore line.
    StringBuilder drops = new StringBuilder();
    for (ConsumerRecord<String, Long> r : readLongs(broker.bootstrapServers(), changelog, true)) {
      String key = r.partition() + "/" + r.key();
      long value = r.value();
      Long before = counts.put(key, value);
      if (before != null && value <= before && drops.length() < 2_000) {
        drops.append(key).append(" at offset ").append(r.offset()).append(": ").append(before)
            .append(" -> ").append(value).append("; ");
      }
    }
    assertThat(counts).as("counts (drops: %s)", drops).isEqualTo(expected);
  }

  @Test
  void aPausedProcessWritesNothingVisibleOnceItsJobRunsElsewhere() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("eos-zombie-in");
    String out = topic("eos-zombie-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    Map<String, String> first = exactlyOnce(job(broker.bootstrapServers(), "eos-zombie-" + in,
        PassThroughTask.class, in, out, tmp.resolve("state-a").toString()));
    Map<String, String> second = new HashMap<>(first);
    second.put("job.state.dir", tmp.resolve("state-b").toString());
    Path dirA = Files.createDirectories(tmp.resolve("a"));
    Path dirB = Files.createDirectories(tmp.resolve("b"));
    long[] written;
    ChildKills firstRuns = new ChildKills(first, tmp, PARTITIONS);
    ChildKills secondRuns = new ChildKills(second, tmp, PARTITIONS);
    try (SteadyInput writer = input(broker, in)) {
      Process zombie = startChild(first, dirA, COMMIT_LOG);
      Process successor = null;
      try {
        firstRuns.awaitProgress(zombie, dirA, new long[PARTITIONS], 1);
        signal(zombie, "STOP"); // paused with a transaction open, most likely
        successor = startChild(second, dirB, COMMIT_LOG);
        secondRuns.awaitProgress(successor, dirB, secondRuns.committed(), 2_000);
        signal(zombie, "CONT");
        Process z = zombie;
        await(Duration.ofSeconds(60), "the resumed process stops, fenced", () -> !z.isAlive());
        assertThat(zombie.exitValue()).as("the fenced process's exit code").isNotZero();
        String failure = childLog(dirA).lines().filter(l -> l.startsWith("job ")).findFirst()
            .orElse("(no failure line)");
        assertThat(failure).as("what the resumed process says as it stops").contains("failed:")
            .containsPattern("is fenced|was fenced");
        secondRuns.awaitProgress(successor, dirB, secondRuns.committed(), 1_000);
      } finally {
        zombie.destroyForcibly();
        zombie.waitFor(30, TimeUnit.SECONDS);
        if (successor != null) {
          successor.destroyForcibly();
          successor.waitFor(30, TimeUnit.SECONDS);
        }
      }
      written = writer.stop();
    }
    secondRuns.finish(written);

    assertEveryInputOnce(broker, second, in, out, written);
  }

  /**
   * Asserts that a reader of committed data finds each input record once in {@code out}, and
   * nothing else; returns how many records that is. On a duplicate it says where the copies are,
   * whether the input holds the record twice, and which transactions hold what.
   */
  private long assertEveryInputOnce(DevBroker broker, Map<String, String> config,
      String in, String out, long[] written) {
    String bootstrap = broker.bootstrapServers();
    Map<String, Integer> times = new HashMap<>();
    Map<String, String> where = new HashMap<>();
    for (ConsumerRecord<String, String> r : readAll(bootstrap, out, true)) {
      times.merge(r.value(), 1, Integer::sum);
      where.merge(r.value(), r.partition() + "@" + r.offset(), (a, b) -> a + ", " + b);
    }
    Map<String, String> inputs = new HashMap<>();
    long total = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      for (long i = 0; i < written[p]; i++) {
        String value = p + ":" + i;
        if (times.getOrDefault(value, 0) > 1 && inputs.isEmpty()) {
          // Whose duplicate is it: the input's (a producer retry) or the job's?
          for (ConsumerRecord<String, String> r : readAll(bootstrap, in, false)) {
            inputs.merge(r.value(), r.partition() + "@" + r.offset(), (a, b) -> a + ", " + b);
          }
        }
        if (!Integer.valueOf(1).equals(times.get(value))) {
          // Which transactions hold the copies, and what checkpoint each committed with.
          String history = TransactionHistory.of(broker, out,
              settings(config).checkpointTopic(config.get("job.name")));
          assertThat(times.get(value)).as("times %s is in the committed output (at %s; in the "
              + "input at %s); the job's transactions: %s; each process's offsets taken and "
              + "checkpoints written: %s/run-*/child.log", value, where.get(value),
              inputs.get(value), history, tmp).isEqualTo(1);
        }
      }
      total += written[p];
    }
    assertThat(times).hasSize((int) total);
    return total;
  }

  private static void signal(Process process, String signal) throws Exception {
    Process kill = new ProcessBuilder("sh", "-c", "kill -" + signal + " " + process.pid())
        .inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s %s", signal, process.pid()).isZero();
  }
}
