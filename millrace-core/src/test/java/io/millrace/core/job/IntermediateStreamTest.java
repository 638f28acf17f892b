package io.millrace.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream the job writes and reads back ({@code streams.<id>.intermediate=true}), as a DSL
 * repartition is: allowed in both task.inputs and task.outputs, created before it is read, and
 * each key it carries meets in one task.
 */
class IntermediateStreamTest {
  @TempDir Path tmp;

  /** Re-keys "in" by value into "mid"; sends what it reads from "mid" to "out" with its task. */
  public static final class RekeyTask implements StreamTask, InitableTask {
    private int partition;

    @Override
    public void init(TaskContext context) {
      partition = context.partitionNumber();
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      if (envelope.stream().equals("in")) {
        collector.send("mid", envelope.value(), envelope.value());
      } else {
        collector.send("out", envelope.key(), partition);
      }
    }
  }

  private Map<String, String> job(String name) {
    Map<String, String> config = JobTestSupport.memoryJob(tmp, name, RekeyTask.class,
        name + "-in", name + "-out");
    config.put("task.inputs", "in,mid");
    config.put("task.outputs", "out,mid");
    config.put("streams.mid.system", "memory");
    config.put("streams.mid.physical.name", name + "-mid");
    config.put("streams.mid.intermediate", "true");
    return config;
  }

  @Test
  void aStreamBothReadAndWrittenWithoutTheMarkIsRefusedNamingTheKey() {
    Map<String, String> config = job(JobTestSupport.unique("refused"));
    config.remove("streams.mid.intermediate");
    MemoryStreams.create(config.get("streams.in.physical.name"), 2).seal();
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("stream mid is both in task.inputs and task.outputs")
        .hasMessageContaining("streams.mid.intermediate=true");
  }

  @Test
  void anIntermediateStreamIsCreatedBeforeItIsReadAndEachKeyMeetsInOneTask() throws Exception {
    String name = JobTestSupport.unique("intermediate");
    Map<String, String> config = job(name);
    MemoryStream in = MemoryStreams.create(name + "-in", 2);
    int messages = 200;
    for (int i = 0; i < messages; i++) {
      in.append(i % 2, null, "key-" + (i % 17));
    }
    in.seal();
    assertThat(MemoryStreams.get(name + "-mid")).as("not made before the job").isNull();
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    assertThat(plan.taskCount()).isEqualTo(2);
    assertThat(MemoryStreams.get(name + "-mid").partitionCount())
        .as("one partition per task of the other inputs").isEqualTo(2);
    LocalRunner runner = LocalRunner.start(plan, io.millrace.core.loop.Clock.SYSTEM);
    try {
      MemoryStream out = MemoryStreams.get(name + "-out");
      Await.until(Await.DEADLINE, "every message back from the intermediate stream",
          () -> out.size(0) == messages);
      Map<Object, Set<Object>> tasksOfKey = new HashMap<>();
      for (Envelope e : out.messages(0)) {
        tasksOfKey.computeIfAbsent(e.key(), k -> new HashSet<>()).add(e.value());
      }
      assertThat(tasksOfKey).hasSize(17);
      tasksOfKey.forEach((key, tasks) -> assertThat(tasks).as("tasks of " + key)
          .isEqualTo(Set.of(Math.floorMod(key.hashCode(), 2))));
    } finally {
      runner.requestStop();
      assertThat(runner.await(Await.DEADLINE.toNanos(), TimeUnit.NANOSECONDS)).isTrue();
    }
    assertThat(runner.failure()).isNull();
  }
}
