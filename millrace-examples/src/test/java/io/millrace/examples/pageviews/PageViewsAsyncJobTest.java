package io.millrace.examples.pageviews;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The async page-view example: every page view is enriched once, and with task.ordering=key each
 * user's page views come out in the order they went in, although lookups take 1-200 ms each and
 * many are in flight.
 */
class PageViewsAsyncJobTest {
  @TempDir Path tmp;

  @Test
  void everyPageViewIsEnrichedOnceAndEachUsersViewsKeepTheirOrder() throws Exception {
    Path root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    List<String> input = Files.readAllLines(
        root.resolve("millrace-examples/data/pageviews-large.csv")).subList(0, 400);
    Path in = tmp.resolve("pageviews.csv");
    Files.write(in, input);
    Path output = tmp.resolve("out");
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int exit = Main.run(new String[] {
        "run", root.resolve("millrace-examples/jobs/pageviews-async.properties").toString(),
        "--set", "streams.pageviews.physical.name=" + in,
        "--set", "streams.enriched.physical.name=" + output,
        "--set", "job.state.dir=" + tmp.resolve("state")},
        new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));

    assertThat(exit).as(err.toString()).isZero();
    List<String> written = Files.readAllLines(output.resolve("part-00000"));
    assertThat(written).hasSize(input.size());
    Map<String, List<String>> pagesIn = new HashMap<>();
    for (String line : input) {
      String[] f = line.split(",");
      pagesIn.computeIfAbsent(f[0], k -> new ArrayList<>()).add(f[1]);
    }
    Map<String, List<String>> pagesOut = new HashMap<>();
    for (String line : written) {
      String[] keyValue = line.split("\t");
      String[] f = keyValue[1].split(",");
      assertThat(f).as("page,country: %s", line).hasSize(2);
      pagesOut.computeIfAbsent(keyValue[0], k -> new ArrayList<>()).add(f[0]);
    }
    assertThat(pagesOut).isEqualTo(pagesIn);
    // The lookups overlap: each takes 1-200 ms, and the answers come back in the order they
    // are answered, not in the order of the views (calls one after another would keep it).
    List<String> viewsInOrder = new ArrayList<>();
    for (String line : input) {
      viewsInOrder.add(line.split(",")[1]);
    }
    List<String> answersInOrder = new ArrayList<>();
    for (String line : written) {
      answersInOrder.add(line.split("\t")[1].split(",")[0]);
    }
    assertThat(answersInOrder).containsExactlyInAnyOrderElementsOf(viewsInOrder)
        .isNotEqualTo(viewsInOrder);
  }
}
