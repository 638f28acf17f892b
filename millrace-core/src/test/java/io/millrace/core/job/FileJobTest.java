package io.millrace.core.job;

import static io.millrace.core.job.JobTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Jobs over the file system, run by {@link LocalRunner}: order, output, checkpoints, restarts. */
class FileJobTest {
  @TempDir Path tmp;

  @BeforeEach
  void reset() {
    JobTestSupport.reset();
  }

  @Test
  void fileJobProcessesEveryLineInOrderPerPartitionAndWritesOutput() throws Exception {
    Path in = tmp.resolve("in");
    List<String> a = numbered("a", 2_500);
    List<String> b = numbered("b", 300);
    writeLines(in.resolve("a.txt"), a);
    writeLines(in.resolve("b.txt"), b);
    // A last line without '\n' and an empty line still count.
    Files.writeString(in.resolve("c.txt"), "c-0\n\nc-2", StandardCharsets.UTF_8);
    Files.writeString(in.resolve(".hidden"), "ignored\n");
    Map<String, String> config = fileJob(tmp, in, RecordingTask.class);
    addFileOutput(config, tmp.resolve("out"));

    LocalRunner runner = runOk(config);

    assertThat(runner.plan().taskCount()).isEqualTo(3);
    assertThat(values("lines", 0)).isEqualTo(new ArrayList<Object>(a));
    assertThat(values("lines", 1)).isEqualTo(new ArrayList<Object>(b));
    assertThat(values("lines", 2)).containsExactly("c-0", "", "c-2");
    assertThat(messages().stream().filter(e -> e.partition() == 0).map(Event::offset))
        .as("offsets are line starts").isEqualTo(lineOffsets(a));
    assertThat(runner.processed()).isEqualTo(2_500 + 300 + 3);

    assertThat(Files.readAllLines(tmp.resolve("out/part-00000"))).isEqualTo(a);
    assertThat(Files.readAllLines(tmp.resolve("out/part-00001"))).isEqualTo(b);
    assertThat(Files.readAllLines(tmp.resolve("out/part-00002"))).containsExactly("c-0", "", "c-2");

    // The final commit checkpoints the last line of each file.
    assertThat(checkpoint(tmp)).isEqualTo(Map.of(
        lines(0), lineOffsets(a).get(a.size() - 1),
        lines(1), lineOffsets(b).get(b.size() - 1),
        lines(2), 5L));
  }

  @Test
  void restartAfterAKillMidFileResumesAfterTheCheckpointWithoutLosingALine() throws Exception {
    List<String> all = numbered("line", 1_000);
    Path file = writeLines(tmp.resolve("in.txt"), all);
    Map<String, String> config = fileJob(tmp, file, CommitThenCrashTask.class);
    addFileOutput(config, tmp.resolve("out"));
    commitAt = "line-0399";
    crashAt = "line-0600";

    LocalRunner killed = run(config);

    assertThat(killed.failure()).isInstanceOf(SimulatedCrash.class);
    List<Object> firstRun = allValues();
    assertThat(firstRun).startsWith("line-0000").contains("line-0599").doesNotContain("line-0600");
    assertThat(checkpoint(tmp)).as("only the requested commit happened")
        .isEqualTo(Map.of(lines(0), lineOffsets(all).get(399)));

    JobTestSupport.reset();
    config.put("task.class", RecordingTask.class.getName());
    runOk(config);

    List<Object> secondRun = allValues();
    assertThat(secondRun).as("resumes right after the checkpointed line, in order")
        .isEqualTo(new ArrayList<Object>(all.subList(400, 1_000)));
    Set<Object> seen = new LinkedHashSet<>(firstRun);
    seen.addAll(secondRun);
    assertThat(seen).as("every line processed at least once").hasSize(1_000);
    assertThat(Files.readAllLines(tmp.resolve("out/part-00000"))).containsAll(all);
    assertThat(checkpoint(tmp)).isEqualTo(Map.of(lines(0), lineOffsets(all).get(999)));
  }

  @Test
  void secondRunWithoutResetProcessesNothingAndOffsetResetIgnoresTheCheckpoint()
      throws Exception {
    List<String> all = numbered("line", 50);
    Path file = writeLines(tmp.resolve("in.txt"), all);
    Map<String, String> config = fileJob(tmp, file, RecordingTask.class);
    runOk(config);
    assertThat(allValues()).hasSize(50);

    JobTestSupport.reset();
    runOk(config);
    assertThat(allValues()).as("everything was committed: nothing to do").isEmpty();
    assertThat(EVENTS).as("the input still ends").extracting(Event::kind).containsExactly("end");

    JobTestSupport.reset();
    config.put("streams.lines.offset.reset", "true");
    runOk(config);
    assertThat(allValues()).isEqualTo(new ArrayList<Object>(all));
  }

  @Test
  void offsetDefaultUpcomingSkipsWhatTheFileHoldsAndOldestReadsIt() throws Exception {
    List<String> all = numbered("line", 20);
    Path file = writeLines(tmp.resolve("in.txt"), all);
    Map<String, String> config = fileJob(tmp, file, RecordingTask.class);
    config.put("streams.lines.offset.default", "upcoming");
    runOk(config);
    assertThat(allValues()).isEmpty();
    assertThat(checkpoint(tmp)).as("nothing processed, nothing checkpointed").isEmpty();

    JobTestSupport.reset();
    config.put("streams.lines.offset.default", "oldest");
    runOk(config);
    assertThat(allValues()).isEqualTo(new ArrayList<Object>(all));
  }

  @Test
  void endOfStreamIsCalledOncePerTaskAfterItsLastMessage() throws Exception {
    // Two co-partitioned inputs of different widths: tasks 0 and 1 read both, task 2 only one.
    Path in = tmp.resolve("in");
    writeLines(in.resolve("0.txt"), numbered("f0", 700));
    writeLines(in.resolve("1.txt"), numbered("f1", 5));
    String side = unique("side");
    io.millrace.core.system.memory.MemoryStream stream =
        io.millrace.core.system.memory.MemoryStreams.create(side, 3);
    for (int i = 0; i < 900; i++) {
      stream.append(i % 3, null, "s" + (i % 3) + "-" + i / 3);
    }
    stream.seal();
    Map<String, String> config = fileJob(tmp, in, RecordingTask.class);
    config.put("task.inputs", "lines,side");
    config.put("streams.side.system", "memory");
    config.put("streams.side.physical.name", side);

    LocalRunner runner = runOk(config);

    assertThat(runner.plan().taskCount()).isEqualTo(3);
    int[] expectedMessages = {700 + 300, 5 + 300, 300};
    for (int task = 0; task < 3; task++) {
      List<Event> events = eventsOfTask(task);
      assertThat(events.stream().filter(e -> e.kind().equals("end"))).as("task %d", task)
          .hasSize(1);
      assertThat(events.get(events.size() - 1).kind()).as("task %d ends last", task)
          .isEqualTo("end");
      assertThat(events).as("task %d", task).hasSize(expectedMessages[task] + 1);
    }
  }
}
