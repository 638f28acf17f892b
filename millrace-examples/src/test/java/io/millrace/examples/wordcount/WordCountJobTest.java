package io.millrace.examples.wordcount;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command, {@code bin/millrace run millrace-examples/jobs/wordcount.properties},
 * through the same entry point, with its repository-relative paths resolved and its output and
 * state sent to a temporary directory.
 */
class WordCountJobTest {
  @TempDir Path tmp;

  /** The module directory (Maven runs tests there and also passes it as "basedir"). */
  static Path moduleDir() {
    return Path.of(System.getProperty("basedir", "")).toAbsolutePath();
  }

  @Test
  void readmeWordCountCommandWritesTheMostFrequentWordFirst() throws Exception {
    Path module = moduleDir();
    Path root = module.getParent();
    Path job = root.resolve("millrace-examples/jobs/wordcount.properties");
    assertThat(job).exists();
    Path output = tmp.resolve("wordcount");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exit = Main.run(new String[] {
        "run", job.toString(),
        "--set", "streams.lines.physical.name="
            + root.resolve("millrace-examples/data/moby-dick-loomings.txt"),
        "--set", "streams.counts.physical.name=" + output,
        "--set", "job.state.dir=" + tmp.resolve("state")},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(exit).as("exit code; stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("job wordcount done");
    List<String> lines = Files.readAllLines(output.resolve("part-00000"));
    assertThat(lines.get(0)).isEqualTo("the\t34");
    // Most frequent first, then alphabetical; every line is word TAB count.
    long previous = Long.MAX_VALUE;
    for (String line : lines) {
      String[] fields = line.split("\t");
      assertThat(fields).hasSize(2);
      long count = Long.parseLong(fields[1]);
      assertThat(count).isLessThanOrEqualTo(previous);
      previous = count;
    }
    assertThat(tmp.resolve("state/checkpoints/container-0.checkpoint")).exists();

    // Run again: the job resets its input offset and truncates its output, so the result is the
    // same rather than appended to.
    int again = Main.run(new String[] {
        "run", job.toString(),
        "--set", "streams.lines.physical.name="
            + root.resolve("millrace-examples/data/moby-dick-loomings.txt"),
        "--set", "streams.counts.physical.name=" + output,
        "--set", "job.state.dir=" + tmp.resolve("state")},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(again).isZero();
    assertThat(Files.readAllLines(output.resolve("part-00000"))).isEqualTo(lines);
  }

  @Test
  void wordCountJobFilePassesConfigCheck() {
    Path job = moduleDir().resolve("jobs/wordcount.properties");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(new String[] {"config", "check", job.toString()},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
  }
}
