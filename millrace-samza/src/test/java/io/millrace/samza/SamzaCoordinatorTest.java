package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.StreamPartition;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.testing.Await;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;
import org.apache.samza.task.TaskCoordinator.RequestScope;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Samza's TaskCoordinator: commit and shutdown requests in both scopes, on inputs that never end. */
class SamzaCoordinatorTest {
  @TempDir Path state;

  static final List<String> SEEN = Collections.synchronizedList(new ArrayList<>());
  /** What the task asks for, at which message ({@code partition/offset}); null: nothing. */
  static volatile String commitAt;
  static volatile String shutdownAt;
  static volatile RequestScope scope;

  @BeforeEach
  void reset() {
    SEEN.clear();
    commitAt = null;
    shutdownAt = null;
    scope = RequestScope.CURRENT_TASK;
  }

  /** Records each message, and asks for a commit or a shutdown at the message it is told. */
  public static final class RequestingTask implements StreamTask {
    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      String at = envelope.getSystemStreamPartition().getPartition().getPartitionId() + "/"
          + envelope.getOffset();
      SEEN.add(at);
      if (at.equals(commitAt)) {
        coordinator.commit(scope);
      }
      if (at.equals(shutdownAt) || (shutdownAt != null && shutdownAt.equals("*/" + envelope.getOffset()))) {
        coordinator.shutdown(scope);
      }
    }
  }

  private static MemoryStream unendingInput(String name) {
    MemoryStream input = SamzaTestJobs.input(name, 2);
    for (int p = 0; p < 2; p++) {
      for (int i = 0; i < 3; i++) {
        input.append(p, null, "m" + i);
      }
    }
    return input; // never sealed
  }

  @Test
  void aCommitRequestCheckpointsTheTasksOffsetsWithoutWaitingForTheInterval() throws Exception {
    String in = SamzaTestJobs.unique("in");
    unendingInput(in);
    commitAt = "0/1";
    Map<String, String> config = SamzaTestJobs.memoryJob(RequestingTask.class, in, state);
    config.put("task.commit.ms", "0"); // commits only on request and at stop
    FileCheckpointStore checkpoints = new FileCheckpointStore(state.resolve("checkpoints"));
    try (RunningJob job = SamzaTestJobs.start(config)) {
      Await.until(Await.DEADLINE, "the requested commit's checkpoint",
          () -> checkpoints.read().containsKey(new StreamPartition("mem", in, 0)));
      assertThat(job.isDone()).isFalse();
      job.stop();
    }
  }

  @Test
  void aShutdownOfAllTasksInTheContainerStopsTheJobAndCommitsWhatItProcessed() throws Exception {
    String in = SamzaTestJobs.unique("in");
    unendingInput(in);
    shutdownAt = "0/1";
    scope = RequestScope.ALL_TASKS_IN_CONTAINER;
    Map<String, String> config = SamzaTestJobs.memoryJob(RequestingTask.class, in, state);
    try (RunningJob job = SamzaTestJobs.start(config)) {
      assertThat(job.await(Await.DEADLINE)).as("the job stopped on its task's request").isTrue();
      job.join();
    }
    assertThat(SEEN).contains("0/0", "0/1").doesNotContain("0/2");

    SEEN.clear();
    shutdownAt = null;
    try (RunningJob job = SamzaTestJobs.start(config)) {
      Await.until(Await.DEADLINE, "the restarted job's message", () -> SEEN.contains("0/2"));
      job.stop();
    }
    assertThat(SEEN).as("the restart resumes after the shutdown's commit")
        .doesNotContain("0/0", "0/1");
  }

  @Test
  void aShutdownOfTheCurrentTaskStopsOnlyItAndTheJobEndsWhenEveryTaskHasAsked()
      throws Exception {
    String in = SamzaTestJobs.unique("in");
    unendingInput(in);
    shutdownAt = "*/1"; // each task, at its second message
    Map<String, String> config = SamzaTestJobs.memoryJob(RequestingTask.class, in, state);
    try (RunningJob job = SamzaTestJobs.start(config)) {
      assertThat(job.await(Await.DEADLINE)).as("the job stopped once both tasks asked").isTrue();
      job.join();
    }
    assertThat(SEEN).containsExactlyInAnyOrder("0/0", "0/1", "1/0", "1/1");
  }
}
