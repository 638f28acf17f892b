package io.millrace.examples.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.test.TaskTestDriver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DSL word count on the test driver, which pipes what the task sends to its repartition back
 * into it: the counts of the bundled text, as a plain count of its words gives them.
 */
class WordCountTest {
  @TempDir Path tmp;

  @Test
  void countsEveryWordOfTheTextThroughItsRepartition() throws Exception {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Map<Object, Object> model = new HashMap<>();
    Map<String, String> job = new HashMap<>();
    job.put("job.name", "dsl-wordcount");
    job.put("app.class", WordCount.class.getName());
    job.put("streams.lines.system", "memory");
    job.put("streams.counts.system", "memory");
    try (TaskTestDriver driver = TaskTestDriver.forJob(job).stateDir(tmp).build()) {
      for (String line : Files.readAllLines(module.resolve("data/moby-dick-loomings.txt"))) {
        driver.pipe("lines", null, line);
        for (String word : line.toLowerCase().split("\\W+")) {
          if (!word.isEmpty()) {
            model.merge(word, 1L, (a, b) -> (Long) a + (Long) b);
          }
        }
      }
      driver.endOfStream("lines");
      assertThat(driver.lastValues("counts")).isEqualTo(model);
      assertThat(driver.outputs("word-counts-repartition")).as("every word went through it")
          .hasSize((int) model.values().stream().mapToLong(c -> (Long) c).sum());
    }
  }
}
