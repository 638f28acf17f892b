package io.millrace.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs with a RocksDB store and a changelog (on the memory system, in-process): a restart after a
 * clean stop reopens the local files and replays only the changelog's tail; damaged local files
 * are wiped and the changelog replayed in full; either way the counts go on where they were.
 */
class RocksDbJobTest {
  static final Map<String, Long> LAST = new ConcurrentHashMap<>();
  @TempDir Path tmp;
  private final String input = "rocks-in-" + System.nanoTime();
  private final String changelog = "rocks-changelog-" + System.nanoTime();

  /** Counts each key in the RocksDB store "counts". */
  public static final class CountingTask implements StreamTask, InitableTask {
    private KeyValueStore<String, Long> counts;

    @Override
    public void init(TaskContext context) {
      counts = context.store("counts");
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      String key = (String) envelope.key();
      Long count = counts.get(key);
      long next = count == null ? 1 : count + 1;
      counts.put(key, next);
      LAST.put(key, next);
    }
  }

  @AfterEach
  void drop() {
    MemoryStreams.drop(input);
    MemoryStreams.drop(changelog);
  }

  private Map<String, String> job() {
    Map<String, String> c = new HashMap<>();
    c.put("job.name", "rocks-job");
    c.put("job.state.dir", tmp.resolve("state").toString());
    c.put("task.class", CountingTask.class.getName());
    c.put("task.inputs", "in");
    c.put("streams.in.system", "memory");
    c.put("streams.in.physical.name", input);
    c.put("stores.counts.factory", "rocksdb");
    c.put("stores.counts.value.serde", "long");
    c.put("stores.counts.changelog", "memory." + changelog);
    c.put("stores.counts.write.batch.size", "7"); // flush often: many changelog records
    return c;
  }

  /** Runs the job over {@code rounds} x 20 keys (2 partitions); returns the restore metric. */
  private long run(int rounds) throws Throwable {
    MemoryStream in = MemoryStreams.create(input, 2);
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < 20; k++) {
        in.append(k % 2, "key-" + k, "x");
      }
    }
    in.seal();
    LAST.clear();
    JobPlan plan = JobPlanner.plan(JobConfig.of(job()));
    LocalRunner.runToEnd(plan);
    return plan.metrics().snapshot().get("container-0").getOrDefault("store-restore-records", 0L);
  }

  @Test
  void aRestartAfterACleanStopReplaysNothingItsLocalFilesHold() throws Throwable {
    assertThat(run(4)).as("first run: nothing to restore").isZero();
    assertThat(LAST).hasSize(20).allSatisfy((k, v) -> assertThat(v).isEqualTo(4L));
    int changelogRecords = MemoryStreams.get(changelog).size(0)
        + MemoryStreams.get(changelog).size(1);
    assertThat(changelogRecords).as("flushed every 7 writes").isGreaterThan(20);

    // The same 80 messages are checkpointed; 40 more come. The local files hold everything the
    // changelog does, so nothing needs replaying.
    assertThat(run(6)).as("second run: local files are up to date").isZero();
    assertThat(LAST).hasSize(20).allSatisfy((k, v) -> assertThat(v).isEqualTo(6L));
  }

  @Test
  void localFilesOlderThanTheChangelogReplayOnlyWhatTheyMiss() throws Throwable {
    run(3);
    // Make task 0's local files look one commit older: they say they hold less of the changelog.
    Path offsetFile = tmp.resolve("state/stores/counts/task-0/CHANGELOG_OFFSET");
    long held = Long.parseLong(Files.readString(offsetFile).trim());
    Files.writeString(offsetFile, (held - 3) + "\n");

    assertThat(run(5)).as("three records replayed, not the whole changelog").isEqualTo(3);
    assertThat(LAST).hasSize(20).allSatisfy((k, v) -> assertThat(v).isEqualTo(5L));
  }

  @Test
  void damagedLocalFilesAreWipedAndRestoredFromTheChangelog() throws Throwable {
    run(3);
    Path task0 = tmp.resolve("state/stores/counts/task-0");
    try (var files = Files.list(task0)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("MANIFEST"))
          .toList()) {
        Files.write(f, "damaged".getBytes(StandardCharsets.UTF_8));
      }
    }
    int task0Changelog = MemoryStreams.get(changelog).size(0);

    assertThat(run(5)).as("task 0's changelog replayed in full").isEqualTo(task0Changelog);
    assertThat(LAST).hasSize(20).allSatisfy((k, v) -> assertThat(v).isEqualTo(5L));
  }

  @Test
  void missingLocalFilesAreRestoredInFull() throws Throwable {
    run(2);
    int all = MemoryStreams.get(changelog).size(0) + MemoryStreams.get(changelog).size(1);
    try (var paths = Files.walk(tmp.resolve("state/stores"))) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }

    assertThat(run(3)).isEqualTo(all);
    assertThat(LAST).hasSize(20).allSatisfy((k, v) -> assertThat(v).isEqualTo(3L));
  }
}
