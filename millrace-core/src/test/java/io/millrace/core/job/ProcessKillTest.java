package io.millrace.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.StreamPartition;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real process stops: a job runs in a child JVM and is killed mid-file, after some commits. After
 * SIGKILL a restart must process every line and repeat only lines after the last checkpoint;
 * SIGTERM (what Ctrl-C does too) must commit what was processed before the process exits.
 */
class ProcessKillTest {
  private static final int LINES = 20_000;
  @TempDir Path tmp;

  /** Copies each line to the output, slowly enough that the kill lands mid-file. */
  public static final class SlowCopyTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      collector.send("out", null, envelope.value());
      if (envelope.offset() % 64 == 0) {
        Thread.sleep(1);
      }
    }
  }

  @Test
  void sigtermCommitsWhatWasProcessedAndStops() throws Exception {
    List<String> lines = numberedLines();
    Path job = writeJob(lines);
    Process child = startChild(job);
    waitUntilMidFile(child);
    child.destroy(); // SIGTERM: the shutdown hook asks the containers to commit and stop
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

    String log = Files.readString(tmp.resolve("child.log"));
    assertThat(log).contains("stopping: committing and closing");
    int committedLines = committedLines();
    List<String> written = Files.readAllLines(tmp.resolve("out/part-00000"));
    assertThat(written).as("the final commit flushed exactly what was processed")
        .isEqualTo(lines.subList(0, committedLines));
  }

  private List<String> numberedLines() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < LINES; i++) {
      lines.add(String.format("line-%05d", i));
    }
    return lines;
  }

  private Path writeJob(List<String> lines) throws Exception {
    Path input = tmp.resolve("in.txt");
    Files.write(input, lines, StandardCharsets.UTF_8);
    Path job = tmp.resolve("job.properties");
    Files.writeString(job, String.join("\n",
        "job.name=kill-nine",
        "task.class=" + SlowCopyTask.class.getName(),
        "task.inputs=lines",
        "task.outputs=out",
        "task.commit.ms=20",
        "job.state.dir=" + tmp.resolve("state"),
        "streams.lines.system=file",
        "streams.lines.physical.name=" + input,
        "streams.out.system=file",
        "streams.out.physical.name=" + tmp.resolve("out"),
        "streams.out.partitions=1",
        ""));
    return job;
  }

  private Process startChild(Path job) throws Exception {
    return new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "run", job.toString())
        .redirectErrorStream(true)
        .redirectOutput(tmp.resolve("child.log").toFile())
        .start();
  }

  private void waitUntilMidFile(Process child) throws Exception {
    Path checkpointFile = new FileCheckpointStore(tmp.resolve("state/checkpoints")).file(0);
    Path out = tmp.resolve("out/part-00000");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline && child.isAlive() && !(Files.exists(checkpointFile)
        && Files.exists(out) && Files.size(out) > 2_000 * 11)) {
      Thread.sleep(20);
    }
    assertThat(child.isAlive()).as("the child is still mid-file: %s",
        Files.readString(tmp.resolve("child.log"))).isTrue();
  }

  private int committedLines() {
    long checkpointed = new FileCheckpointStore(tmp.resolve("state/checkpoints")).read()
        .get(new StreamPartition("file", "lines", 0));
    return (int) (checkpointed / 11) + 1; // "line-NNNNN\n" is 11 bytes
  }

  @Test
  void killNineMidFileThenRestartLosesNoLineAndRepeatsOnlyAfterTheCheckpoint() throws Exception {
    List<String> lines = numberedLines();
    Path job = writeJob(lines);
    Path out = tmp.resolve("out");
    Process child = startChild(job);
    waitUntilMidFile(child);
    child.destroyForcibly(); // SIGKILL: no shutdown hook, no final commit
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    int committedLines = committedLines();
    assertThat(committedLines).isBetween(1, LINES - 1);

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(new String[] {"run", job.toString()},
        new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
    assertThat(exit).as(err.toString()).isZero();

    List<String> written = Files.readAllLines(out.resolve("part-00000"));
    Map<String, Integer> times = new HashMap<>();
    for (String line : written) {
      times.merge(line, 1, Integer::sum);
    }
    for (int i = 0; i < LINES; i++) {
      String line = lines.get(i);
      assertThat(times.get(line)).as("%s is written", line).isNotNull();
      if (i < committedLines) {
        assertThat(times.get(line)).as("%s was before the checkpoint: written once", line)
            .isEqualTo(1);
      }
    }
    // The restart resumed after the checkpoint: the output ends with every line in order.
    assertThat(written.subList(written.size() - (LINES - committedLines), written.size()))
        .isEqualTo(lines.subList(committedLines, LINES));
  }
}
