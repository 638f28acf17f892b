package io.millrace.examples.wordcount;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The word count under the test driver: nothing until the input ends, then most frequent first. */
class WordCountTaskTest {
  @Test
  void writesEveryWordWithItsCountMostFrequentFirstWhenTheInputEnds() {
    try (TaskTestDriver driver = TaskTestDriver.forJob(Path.of("jobs/wordcount.properties"))
        .build()) {
      driver.pipe("lines", null, "Call me Ishmael.");
      driver.pipe("lines", null, "Some years ago - never mind how long precisely - call me.");
      assertThat(driver.outputs("counts")).isEmpty();

      driver.endOfStream("lines");
      assertThat(driver.outputs("counts")).extracting(o -> o.key() + "\t" + o.value())
          .startsWith("call\t2", "me\t2", "ago\t1", "how\t1", "ishmael\t1");
      assertThat(driver.outputs("counts")).allMatch(o -> o.partition() == 0);
    }
  }
}
