package io.millrace.samza.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code millrace samza}'s command line without a broker: its usage, and the jobs it refuses
 * before it reaches any system, each in one line naming what is wrong (exit 2).
 */
class SamzaCommandTest {
  private static final String KAFKA_CHECKPOINTS =
      "task.checkpoint.factory=org.apache.samza.checkpoint.kafka.KafkaCheckpointManagerFactory";

  /** {exit code, output, errors}. */
  private static String[] run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = SamzaCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new String[] {Integer.toString(exit), out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8)};
  }

  private static Path job(Path dir, String... lines) throws Exception {
    Path file = dir.resolve("job.properties");
    Files.writeString(file, String.join("\n", "job.name=back", "task.class=acme.Task",
        "task.inputs=kafka.in", String.join("\n", lines), ""));
    return file;
  }

  @Test
  void helpPrintsTheUsageAndBadUsageExitsTwoWithIt() {
    assertThat(run("export-checkpoint", "--help")).containsExactly("0", SamzaCommand.USAGE + "\n",
        "");
    String[] none = run();
    assertThat(none[0]).isEqualTo("2");
    assertThat(none[2]).startsWith("usage: millrace samza export-checkpoint");
    assertThat(run("import-checkpoint")[2])
        .startsWith("error: millrace samza takes export-checkpoint, not 'import-checkpoint'\n");
    assertThat(run("export-checkpoint")[2]).startsWith("error: no job file given\n");
    assertThat(run("export-checkpoint", "a.properties", "b.properties")[2])
        .startsWith("error: unexpected argument 'b.properties'\n");
    assertThat(run("export-checkpoint", "a.properties", "--set")[2])
        .startsWith("error: --set needs a value\n");
  }

  @Test
  void aMissingJobFileIsNamed(@TempDir Path dir) {
    String[] result = run("export-checkpoint", dir.resolve("gone.properties").toString());
    assertThat(result[0]).isEqualTo("2");
    assertThat(result[2]).isEqualTo("error: job file " + dir.resolve("gone.properties")
        + " does not exist\n");
  }

  @Test
  void aJobWithoutSamzasKafkaCheckpointsIsRefusedNamingTheKey(@TempDir Path dir)
      throws Exception {
    Path file = job(dir, "task.checkpoint.factory=org.apache.samza.checkpoint.file"
        + ".FileSystemCheckpointManagerFactory");
    String[] result = run("export-checkpoint", file.toString());
    assertThat(result[0]).isEqualTo("2");
    assertThat(result[2]).startsWith("error: bad value 'org.apache.samza.checkpoint.file"
        + ".FileSystemCheckpointManagerFactory' for task.checkpoint.factory in " + file
        + ": expected org.apache.samza.checkpoint.kafka.KafkaCheckpointManagerFactory")
        .hasLineCount(1);
  }

  @Test
  void aJobGroupedOtherwiseThanByPartitionIsRefusedNamingTheKey(@TempDir Path dir)
      throws Exception {
    Path file = job(dir, KAFKA_CHECKPOINTS, "job.systemstreampartition.grouper.factory=org"
        + ".apache.samza.container.grouper.stream.GroupBySystemStreamPartitionFactory");
    String[] result = run("export-checkpoint", file.toString());
    assertThat(result[0]).isEqualTo("2");
    assertThat(result[2]).startsWith("error: bad value 'org.apache.samza.container.grouper.stream"
        + ".GroupBySystemStreamPartitionFactory' for job.systemstreampartition.grouper.factory")
        .hasLineCount(1);
  }

  @Test
  void checkpointVersionsSamzaDoesNotKnowAreRefusedNamingTheKey(@TempDir Path dir)
      throws Exception {
    Path file = job(dir, KAFKA_CHECKPOINTS, "task.checkpoint.write.versions=1,3");
    String[] result = run("export-checkpoint", file.toString());
    assertThat(result[0]).isEqualTo("2");
    assertThat(result[2]).startsWith("error: bad value '1,3' for task.checkpoint.write.versions")
        .hasLineCount(1);
  }

  /**
   * Its changelog holds the aborted writes of any commit that failed here, which Samza's
   * consumers, reading {@code read_uncommitted} by default, would restore (SamzaRoundTripTest's
   * exactly-once trips show the count it then makes).
   */
  @Test
  void aJobThatWroteInTransactionsHereIsRefusedUnlessSamzaReadsCommittedDataOnly(
      @TempDir Path dir) throws Exception {
    for (String how : List.of("job.coordinator=kafka", "task.processing.guarantee=exactly-once")) {
      Path file = job(dir, KAFKA_CHECKPOINTS, how, "stores.counts.changelog=kafka.counts-log");
      String[] result = run("export-checkpoint", file.toString());
      assertThat(result[0]).isEqualTo("2");
      assertThat(result[2]).startsWith("error: bad value 'read_uncommitted' for"
          + " systems.kafka.consumer.isolation.level in " + file + ": expected read_committed:"
          + " store counts's changelog kafka.counts-log was written in Kafka transactions here ("
          + how + ")").hasLineCount(1);
    }
  }

  @Test
  void aTaskNotOnTheClassPathIsNamed(@TempDir Path dir) throws Exception {
    Path file = job(dir, KAFKA_CHECKPOINTS, "task.checkpoint.system=kafka",
        "systems.kafka.samza.factory=org.apache.samza.system.kafka.KafkaSystemFactory");
    String[] result = run("export-checkpoint", file.toString(), "--classpath",
        dir.resolve("no-such-jar.jar").toString());
    assertThat(result[0]).isEqualTo("2");
    assertThat(result[2]).contains("acme.Task").hasLineCount(1);
  }
}
