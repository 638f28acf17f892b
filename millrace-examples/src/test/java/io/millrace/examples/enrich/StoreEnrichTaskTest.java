package io.millrace.examples.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The store-backed join under the test driver: users fill the store, page views read it. */
class StoreEnrichTaskTest {
  @Test
  void joinsEachPageViewWithTheUserInTheStore() {
    try (TaskTestDriver driver = TaskTestDriver.forJob(Path.of("jobs/enrich-store.properties"))
        .build()) {
      driver.pipe("users", null, "# id,name,country");
      driver.pipe("users", null, "u1,Ada,GB");
      driver.pipe("pageviews", null, "u1,/docs");
      driver.pipe("pageviews", null, "u9,/");
      assertThat(driver.values("enriched")).containsExactly("/docs,Ada,GB", "/,?,?");
      assertThat(driver.<String, String>store("users").get("u1")).isEqualTo("Ada,GB");
    }
  }

  @Test
  void aUserAlreadyInTheStoreNeedsNoUserLine() {
    try (TaskTestDriver driver = TaskTestDriver.forJob(Path.of("jobs/enrich-store.properties"))
        .build()) {
      driver.<String, String>store("users").put("u2", "Grace,US");
      driver.pipe("pageviews", null, "u2,/download");
      assertThat(driver.lastValues("enriched")).containsEntry("u2", "/download,Grace,US");
    }
  }
}
