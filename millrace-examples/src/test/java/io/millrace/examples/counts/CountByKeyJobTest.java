package io.millrace.examples.counts;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RocksDB counting example: right counts, in key order, and the same again on a second run. */
class CountByKeyJobTest {
  @TempDir Path tmp;

  private List<String> run(Path module) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(new String[] {
        "run", module.resolve("jobs/count-by-key.properties").toString(),
        "--set", "streams.views.physical.name=" + module.resolve("data/pageviews-large.csv"),
        "--set", "streams.out.physical.name=" + tmp.resolve("out"),
        "--set", "job.state.dir=" + tmp.resolve("state")},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    try {
      return Files.readAllLines(tmp.resolve("out/part-00000"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void countsEveryUsersViewsAndASecondRunWritesThemAgainFromTheStore() throws Exception {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Map<String, Long> expected = new TreeMap<>();
    for (String line : Files.readAllLines(module.resolve("data/pageviews-large.csv"))) {
      expected.merge(line.substring(0, line.indexOf(',')), 1L, Long::sum);
    }
    List<String> want = new ArrayList<>();
    expected.forEach((user, count) -> want.add(user + "\t" + count));

    assertThat(run(module)).isEqualTo(want);
    assertThat(run(module)).as("nothing new read; the counts come from the store's files")
        .isEqualTo(want);
  }
}
