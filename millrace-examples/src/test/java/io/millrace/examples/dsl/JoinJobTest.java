package io.millrace.examples.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DSL's join example as millrace run runs it: every page view once, in order, with its
 * user's name and country from the table (?,? for a user it does not hold), as a plain map of
 * the users gives them, and the same as the task-written enrich example writes; it ends, with
 * "done", as a bounded job without a repartition does.
 */
class JoinJobTest {
  @TempDir Path tmp;

  private List<String> run(Path module, String job, Path output, ByteArrayOutputStream out)
      throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Main.run(new String[] {
        "run", module.resolve("jobs/" + job + ".properties").toString(),
        "--set", "streams.users.physical.name=" + module.resolve("data/users.csv"),
        "--set", "streams.pageviews.physical.name=" + module.resolve("data/pageviews.csv"),
        "--set", "streams.enriched.physical.name=" + output,
        "--set", "job.state.dir=" + tmp.resolve(job + "-state")},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).as("stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    return Files.readAllLines(output.resolve("part-00000"));
  }

  @Test
  void enrichesEveryPageViewWithItsUserAsAMapOfTheUsersDoesAndEnds() throws Exception {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Map<String, String> users = new HashMap<>();
    for (String line : Files.readAllLines(module.resolve("data/users.csv"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        String[] f = line.split(",", 2);
        users.put(f[0], f[1]);
      }
    }
    List<String> expected = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(module.resolve("data/pageviews.csv"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        String[] f = line.split(",", 2);
        expected.add(f[0] + "\t" + f[1] + "," + users.getOrDefault(f[0], "?,?"));
      }
    }
    assertThat(expected).as("the data has views of unknown users").anyMatch(l -> l.endsWith("?,?"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<String> joined = run(module, "join", tmp.resolve("join"), out);
    assertThat(joined).isEqualTo(expected);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("done");
    assertThat(run(module, "enrich", tmp.resolve("enrich"), new ByteArrayOutputStream()))
        .as("what the task-written enrich example writes").isEqualTo(joined);
  }
}
