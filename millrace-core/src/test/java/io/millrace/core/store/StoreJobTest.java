package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Jobs with stores on the embedded systems: counting, changelog, restore after a restart. */
class StoreJobTest {
  /** The count each task saw last for each key, as the store holds it. */
  static final Map<String, Long> LAST_COUNT = new ConcurrentHashMap<>();
  @TempDir Path tmp;
  private final String input = "store-in-" + System.nanoTime();
  private final String changelog = "store-changelog-" + System.nanoTime();

  /** Counts each key in the store "counts". */
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
      LAST_COUNT.put(key, next);
    }
  }

  @AfterEach
  void dropStreams() {
    MemoryStreams.drop(input);
    MemoryStreams.drop(changelog);
  }

  private Map<String, String> job() {
    Map<String, String> c = new HashMap<>();
    c.put("job.name", "store-job");
    c.put("job.state.dir", tmp.resolve("state").toString());
    c.put("task.class", CountingTask.class.getName());
    c.put("task.inputs", "in");
    c.put("streams.in.system", "memory");
    c.put("streams.in.physical.name", input);
    c.put("stores.counts.factory", "memory");
    c.put("stores.counts.value.serde", "long");
    c.put("stores.counts.changelog", "memory." + changelog);
    return c;
  }

  private void append(MemoryStream stream, int rounds, int keys) {
    for (int r = 0; r < rounds; r++) {
      for (int k = 0; k < keys; k++) {
        stream.append(k % 2, "key-" + k, "x");
      }
    }
  }

  @Test
  void aRestartRestoresTheStoreFromItsChangelogAndCountsGoOnWithoutLoss() throws Throwable {
    MemoryStream in = MemoryStreams.create(input, 2);
    append(in, 3, 10);
    in.seal();
    LAST_COUNT.clear();
    assertThat(LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(job())))).isEqualTo(30);
    assertThat(LAST_COUNT).hasSize(10).allSatisfy((k, v) -> assertThat(v).isEqualTo(3L));
    // The memory engine keeps nothing: the second run's counts come from the changelog.
    assertThat(MemoryStreams.get(changelog).size(0) + MemoryStreams.get(changelog).size(1))
        .as("each key flushed once at the final commit").isEqualTo(10);
    Map<StreamPartition, Long> checkpoint =
        new FileCheckpointStore(tmp.resolve("state/checkpoints")).read();
    assertThat(checkpoint).containsEntry(new StreamPartition("memory", "changelog:counts", 0), 4L)
        .containsEntry(new StreamPartition("memory", "in", 0), 14L);

    MemoryStream more = MemoryStreams.create(input, 2);
    append(more, 5, 10); // the same 30 again (offsets 0..14 are checkpointed), then 20 more
    more.seal();
    LAST_COUNT.clear();
    assertThat(LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(job())))).isEqualTo(20);
    assertThat(LAST_COUNT).hasSize(10).allSatisfy((k, v) -> assertThat(v).isEqualTo(5L));
  }

  /**
   * Under Samza's changelog order (a Samza job moved here), task k's store is in the changelog
   * partition of its name's rank in text order: with 12 tasks, task 10's in partition 2 and task
   * 2's in partition 4. The checkpoint names those partitions, and a restart restores each task
   * from its own.
   */
  @Test
  void underSamzasOrderEachTaskKeepsItsStoreInTheChangelogPartitionSamzaGivesIt()
      throws Throwable {
    int tasks = 12;
    Map<String, String> c = job();
    c.put("job.changelog.partition.order", "samza");
    MemoryStream in = MemoryStreams.create(input, tasks);
    for (int round = 0; round < 3; round++) {
      for (int task = 0; task < tasks; task++) {
        in.append(task, "key-" + task, "x");
      }
    }
    in.seal();
    LAST_COUNT.clear();
    assertThat(LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)))).isEqualTo(3 * tasks);

    ChangelogPartitions samza = ChangelogPartitions.samza(tasks);
    MemoryStream log = MemoryStreams.get(changelog);
    Map<StreamPartition, Long> checkpoint =
        new FileCheckpointStore(tmp.resolve("state/checkpoints")).read();
    for (int task = 0; task < tasks; task++) {
      int partition = samza.of(task);
      assertThat(log.size(partition)).as("changelog partition %d", partition).isEqualTo(1);
      Object key = log.messages(partition).get(0).key();
      assertThat(key instanceof byte[] bytes
          ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8) : key)
          .as("changelog partition %d", partition).isEqualTo("key-" + task);
      assertThat(checkpoint).containsEntry(
          new StreamPartition("memory", "changelog:counts", partition), 0L);
    }
    assertThat(samza.of(10)).isEqualTo(2);

    MemoryStream more = MemoryStreams.create(input, tasks);
    for (int round = 0; round < 5; round++) {
      for (int task = 0; task < tasks; task++) {
        more.append(task, "key-" + task, "x");
      }
    }
    more.seal();
    LAST_COUNT.clear();
    assertThat(LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)))).isEqualTo(2 * tasks);
    assertThat(LAST_COUNT).hasSize(tasks).allSatisfy((k, v) -> assertThat(v).isEqualTo(5L));
  }

  /**
   * A synchronous task on the worker pool uses its store on worker threads while the loop's
   * commits hand the same store's cache over: the commits wait for its message in flight, so no
   * count is lost, on the worker or in the changelog a restart restores from.
   */
  @Test
  void aTaskOnTheWorkerPoolKeepsExactCountsThroughCommitsEveryMillisecond() throws Throwable {
    Map<String, String> c = job();
    c.put("job.container.thread.pool.size", "4");
    c.put("task.max.concurrency", "1");
    c.put("task.commit.ms", "1");
    c.put("stores.counts.cache.size", "8"); // evictions on the workers, hand-overs on the loop
    for (int run = 1; run <= 2; run++) {
      MemoryStream in = MemoryStreams.create(input, 2);
      append(in, 200 * run, 40);
      in.seal();
      LAST_COUNT.clear();
      LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)));
      int expected = 200 * run;
      assertThat(LAST_COUNT).as("run %d", run).hasSize(40)
          .allSatisfy((k, v) -> assertThat(v).isEqualTo((long) expected));
    }
  }

  @Test
  void severalStoresRestoreInParallelToTheSameStateAsOnOneThread() throws Throwable {
    String second = changelog + "-second";
    try {
      for (String threads : new String[] {"1", "3"}) {
        MemoryStreams.drop(changelog);
        MemoryStreams.drop(second);
        Map<String, String> c = job();
        c.put("stores.counts.changelog", "memory." + changelog);
        c.put("stores.counts.cache.size", "2"); // many flushes: many changelog records
        c.put("stores.spare.factory", "memory");
        c.put("stores.spare.value.serde", "long");
        c.put("stores.spare.changelog", "memory." + second);
        c.put("stores.spare.cache.size", "2");
        c.put("task.class", TwoStoreTask.class.getName());
        c.put("job.container.restore.threads", threads);
        c.put("job.state.dir", tmp.resolve("state-" + threads).toString());
        MemoryStream in = MemoryStreams.create(input, 2);
        append(in, 50, 40);
        in.seal();
        LAST_COUNT.clear();
        LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)));
        assertThat(LAST_COUNT).hasSize(80).allSatisfy((k, v) -> assertThat(v).isEqualTo(50L));

        MemoryStream more = MemoryStreams.create(input, 2);
        append(more, 51, 40); // one more round after the 2,000 checkpointed
        more.seal();
        LAST_COUNT.clear();
        assertThat(LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)))).isEqualTo(40);
        assertThat(LAST_COUNT).as("restored on %s thread(s)", threads).hasSize(80)
            .allSatisfy((k, v) -> assertThat(v).isEqualTo(51L));
      }
    } finally {
      MemoryStreams.drop(second);
    }
  }

  /** Counts each key in two stores, "counts" and "spare" (its keys prefixed "spare-"). */
  public static final class TwoStoreTask implements StreamTask, InitableTask {
    private KeyValueStore<String, Long> counts;
    private KeyValueStore<String, Long> spare;

    @Override
    public void init(TaskContext context) {
      counts = context.store("counts");
      spare = context.store("spare");
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      String key = (String) envelope.key();
      for (KeyValueStore<String, Long> store : List.of(counts, spare)) {
        String k = store == counts ? key : "spare-" + key;
        Long count = store.get(k);
        long next = count == null ? 1 : count + 1;
        store.put(k, next);
        LAST_COUNT.put(k, next);
      }
    }
  }

  @Test
  void restoreThreadsMustBePositive() {
    MemoryStreams.create(input, 1).seal();
    Map<String, String> c = job();
    c.put("job.container.restore.threads", "0");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("job.container.restore.threads");
  }

  @Test
  void aStoreWithoutAChangelogStartsEmptyEachRunOnTheMemoryEngine() throws Throwable {
    MemoryStream in = MemoryStreams.create(input, 2);
    append(in, 2, 4);
    in.seal();
    Map<String, String> c = job();
    c.remove("stores.counts.changelog");
    LAST_COUNT.clear();
    LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)));
    assertThat(LAST_COUNT).allSatisfy((k, v) -> assertThat(v).isEqualTo(2L));
  }

  @Test
  void storeKeysAreCheckedWithSuggestions() {
    MemoryStreams.create(input, 1).seal();
    Map<String, String> c = job();
    c.put("stores.counts.cache.sise", "10");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown key stores.counts.cache.sise")
        .hasMessageContaining("did you mean stores.counts.cache.size?");
  }

  @Test
  void aStoreNeedsAKnownEngine() {
    Map<String, String> c = job();
    c.put("stores.counts.factory", "leveldb");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad value 'leveldb' for stores.counts.factory")
        .hasMessageContaining("memory");
    c.remove("stores.counts.factory");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("missing required key stores.counts.factory");
  }

  @Test
  void aChangelogMustNameASystemAndAStream() {
    Map<String, String> c = job();
    c.put("stores.counts.changelog", "counts-changelog");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("stores.counts.changelog").hasMessageContaining("<system>.<stream>");
    c.put("stores.counts.changelog", "kafka.counts-changelog");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("no system named kafka");
  }

  /** Asks for a store the job does not declare. */
  public static final class WrongStoreTask implements StreamTask, InitableTask {
    @Override
    public void init(TaskContext context) {
      context.store("countz");
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {}
  }

  @Test
  void askingForAnUndeclaredStoreNamesTheDeclaredOnes() throws Exception {
    MemoryStreams.create(input, 1).seal();
    Map<String, String> c = job();
    c.put("task.class", WrongStoreTask.class.getName());
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(c)),
        io.millrace.core.loop.Clock.SYSTEM);
    runner.start();
    runner.await();
    assertThat(runner.failure()).hasMessageContaining("store 'countz'")
        .hasMessageContaining("[counts]");
  }

  /** Counts as CountingTask does, and notes its close in the store as it closes. */
  public static final class NotingCloseTask implements StreamTask, InitableTask, ClosableTask {
    private KeyValueStore<String, Long> counts;

    @Override
    public void init(TaskContext context) {
      counts = context.store("counts");
      Long closes = counts.get("closes");
      LAST_COUNT.put("closes seen at init of task " + context.partitionNumber(),
          closes == null ? 0 : closes);
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      String key = (String) envelope.key();
      Long count = counts.get(key);
      counts.put(key, count == null ? 1 : count + 1);
    }

    @Override
    public void close() {
      Long closes = counts.get("closes");
      counts.put("closes", closes == null ? 1 : closes + 1);
    }
  }

  /**
   * What a task writes to its store as it closes, after the final commit (a DSL window's
   * deletions, held until that commit acknowledged its result), is committed at a clean stop:
   * the next run restores it from the changelog (the memory engine keeps nothing).
   */
  @Test
  void aCleanStopCommitsWhatTheTasksWroteToTheirStoresAsTheyClosed() throws Throwable {
    Map<String, String> c = job();
    c.put("task.class", NotingCloseTask.class.getName());
    for (int run = 0; run < 2; run++) {
      MemoryStream in = MemoryStreams.create(input, 2);
      append(in, 1, 4);
      in.seal();
      LAST_COUNT.clear();
      LocalRunner.runToEnd(JobPlanner.plan(JobConfig.of(c)));
      assertThat(LAST_COUNT).containsEntry("closes seen at init of task 0", (long) run)
          .containsEntry("closes seen at init of task 1", (long) run);
    }
  }

  /**
   * The commit after the tasks closed runs only when one of them wrote to a store as it closed:
   * with a commit interval longer than the run, a task that writes nothing then is committed
   * once (the final commit), one that does twice.
   */
  @Test
  void aCleanStopCommitsAgainAfterTheTasksCloseOnlyWhenTheyWroteToAStore() throws Throwable {
    Map<String, String> c = job();
    c.put("task.commit.ms", "3600000");
    assertThat(commitsOfARunToTheEnd(c)).as("commits of a task that writes nothing as it closes")
        .isEqualTo(1);
    c.put("task.class", NotingCloseTask.class.getName());
    assertThat(commitsOfARunToTheEnd(c)).as("commits of a task that writes as it closes")
        .isEqualTo(2);
  }

  private long commitsOfARunToTheEnd(Map<String, String> c) throws Throwable {
    MemoryStream in = MemoryStreams.create(input, 2);
    append(in, 1, 4);
    in.seal();
    JobPlan plan = JobPlanner.plan(JobConfig.of(c));
    LocalRunner.runToEnd(plan);
    return plan.metrics().counter("container-0", "commits").count();
  }
}
