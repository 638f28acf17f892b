package io.millrace.examples.counts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.store.KeyValueStore;
import io.millrace.test.TaskFailure;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The count-by-key task under the test driver, with its job's keys and a real RocksDB store. */
class CountByKeyTaskTest {
  private static TaskTestDriver driver() {
    return TaskTestDriver.forJob(Path.of("jobs/count-by-key.properties"))
        .set("task.window.ms", "1000").build();
  }

  @Test
  void eachWindowSendsTheCountsThatChangedSinceTheLast() {
    try (TaskTestDriver driver = driver()) {
      driver.pipe("views", "alice", "/home");
      driver.pipe("views", "alice", "/cart");
      driver.pipe("views", "bob", "/home");
      driver.advanceTime(Duration.ofSeconds(1));
      assertThat(driver.lastValues("out")).containsEntry("alice", 2L).containsEntry("bob", 1L);

      driver.clearOutputs();
      driver.pipe("views", "bob", "/docs");
      driver.advanceTime(Duration.ofSeconds(1));
      assertThat(driver.lastValues("out")).containsOnlyKeys("bob").containsEntry("bob", 2L);
    }
  }

  @Test
  void theEndOfTheInputSendsEveryCountInKeyOrderIncludingThoseFromBefore() {
    try (TaskTestDriver driver = driver()) {
      KeyValueStore<String, Long> counts = driver.store("counts");
      counts.put("carol", 40L); // as a restart finds it in the store's files
      driver.pipe("views", "carol", "/home");
      driver.pipe("views", "alice", "/home");
      driver.endOfStream("views");
      assertThat(driver.outputs("out")).extracting(o -> o.key() + "=" + o.value())
          .containsExactly("alice=1", "carol=41");
    }
  }

  @Test
  void aPageViewWithoutAUserIsRefusedNamingTheMessage() {
    try (TaskTestDriver driver = driver()) {
      assertThatThrownBy(() -> driver.pipe("views", null, "/home"))
          .isInstanceOf(TaskFailure.class).hasMessageContaining("needs a key");
    }
  }
}
