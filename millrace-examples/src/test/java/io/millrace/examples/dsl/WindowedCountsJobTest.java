package io.millrace.examples.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DSL's windowed-counts example as millrace run runs it: every user's views per minute once,
 * as a plain model of tumbling windows with the example's out-of-orderness and grace gives them,
 * the late views aside, and the same again on a second run over the same state.
 */
class WindowedCountsJobTest {
  @TempDir Path tmp;

  private List<String> run(Path module, String output) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(new String[] {
        "run", module.resolve("jobs/windowed-counts.properties").toString(),
        "--set", "streams.views.physical.name=" + module.resolve("data/pageviews-timed.csv"),
        "--set", "streams.counts.physical.name=" + tmp.resolve("out"),
        "--set", "streams.late.physical.name=" + tmp.resolve("late"),
        "--set", "job.state.dir=" + tmp.resolve("state")},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    return Files.readAllLines(tmp.resolve(output).resolve("part-00000"));
  }

  @Test
  void countsEachUsersViewsPerMinuteOnceAndSetsTheLateOnesAside() throws Exception {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Map<String, Long> model = new TreeMap<>();
    List<String> late = new ArrayList<>();
    long watermark = Long.MIN_VALUE;
    for (String line : Files.readAllLines(module.resolve("data/pageviews-timed.csv"))) {
      String[] f = line.split(",");
      long t = Long.parseLong(f[1]);
      long start = Math.floorDiv(t, 60_000) * 60_000;
      if (watermark != Long.MIN_VALUE && start + 60_000 + 10_000 <= watermark) {
        late.add(f[0] + "\t" + f[1] + "," + f[2]);
      } else {
        model.merge(f[0] + " " + Instant.ofEpochMilli(start), 1L, Long::sum);
      }
      watermark = Math.max(watermark, t - 5_000);
    }
    assertThat(late).as("the example's data has late views").isNotEmpty();
    Map<String, Long> counted = new TreeMap<>();
    for (String line : run(module, "out")) {
      String[] kv = line.split("\t");
      assertThat(counted.put(kv[0], Long.parseLong(kv[1]))).as(kv[0] + " once").isNull();
    }
    assertThat(counted).isEqualTo(model);
    assertThat(Files.readAllLines(tmp.resolve("late").resolve("part-00000"))).isEqualTo(late);
    assertThat(run(module, "out")).as("a second run over the same state writes the same")
        .hasSize(model.size());
  }
}
