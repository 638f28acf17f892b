package io.millrace.examples.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The enrich example: the user table is a bootstrap stream, so every page view of a known user
 * comes out with the user's name and country (without the bootstrap, the first views get "?,?").
 */
class EnrichJobTest {
  @TempDir Path tmp;

  @Test
  void everyPageViewOfAKnownUserIsEnrichedBecauseTheUsersAreReadFirst() throws Exception {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Path data = module.resolve("data");
    Path output = tmp.resolve("enrich");
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exit = Main.run(new String[] {
        "run", module.resolve("jobs/enrich.properties").toString(),
        "--set", "streams.users.physical.name=" + data.resolve("users.csv"),
        "--set", "streams.pageviews.physical.name=" + data.resolve("pageviews.csv"),
        "--set", "streams.enriched.physical.name=" + output,
        "--set", "job.state.dir=" + tmp.resolve("state")},
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(exit).as("exit code; stderr: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    List<String> views = new ArrayList<>();
    for (String line : Files.readAllLines(data.resolve("pageviews.csv"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        views.add(line);
      }
    }
    List<String> enriched = Files.readAllLines(output.resolve("part-00000"));
    assertThat(enriched).as("one output line per page view, in order").hasSize(views.size());
    Set<String> known = Set.of("u1", "u2", "u3", "u4", "u5");
    int unknown = 0;
    for (int i = 0; i < views.size(); i++) {
      String[] view = views.get(i).split(",");
      String line = enriched.get(i);
      assertThat(line).startsWith(view[0] + "\t" + view[1] + ",");
      if (known.contains(view[0])) {
        assertThat(line).as("page view %d of known user %s", i, view[0]).doesNotContain("?,?");
      } else {
        assertThat(view[0]).isEqualTo("u6");
        assertThat(line).endsWith(",?,?");
        unknown++;
      }
    }
    assertThat(unknown).as("u6 is not in the user table").isPositive();
    assertThat(enriched).contains("u1\t/,Ada,GB", "u5\t/pricing,Niklaus,CH");
  }

  @Test
  void theStoreBackedJoinWritesWhatTheMapBackedOneDoes() throws Exception {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Path data = module.resolve("data");
    List<List<String>> outputs = new ArrayList<>();
    for (String job : List.of("enrich", "enrich-store")) {
      Path output = tmp.resolve(job + "-out");
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int exit = Main.run(new String[] {
          "run", module.resolve("jobs/" + job + ".properties").toString(),
          "--set", "streams.users.physical.name=" + data.resolve("users.csv"),
          "--set", "streams.pageviews.physical.name=" + data.resolve("pageviews.csv"),
          "--set", "streams.enriched.physical.name=" + output,
          "--set", "job.state.dir=" + tmp.resolve(job + "-state")},
          new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
          new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(exit).as("%s: %s", job, err.toString(StandardCharsets.UTF_8)).isZero();
      outputs.add(Files.readAllLines(output.resolve("part-00000")));
    }
    assertThat(outputs.get(1)).hasSize(200).isEqualTo(outputs.get(0));
  }
}
