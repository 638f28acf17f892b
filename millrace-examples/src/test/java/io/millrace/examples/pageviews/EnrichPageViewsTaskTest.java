package io.millrace.examples.pageviews;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.test.TaskFailure;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The async enrichment under the test driver: outputs show as the service answers. */
class EnrichPageViewsTaskTest {
  private static TaskTestDriver.Builder job() {
    return TaskTestDriver.forJob(Path.of("jobs/pageviews-async.properties"));
  }

  @Test
  void eachPageViewIsSentOnWithTheUsersCountryOnceTheServiceAnswers() {
    try (TaskTestDriver driver = job().build()) {
      driver.pipe("pageviews", "u1", "/docs");
      driver.pipe("pageviews", "u2", "/");
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.outputs("enriched")).hasSize(2)
          .allMatch(o -> ((String) o.value()).matches("/(docs)?,[A-Z]{2}"));
      assertThat(driver.inFlight()).isZero();
    }
  }

  @Test
  void theTestChoosesTheOrderInWhichHeldAnswersOfDifferentUsersAreTaken() {
    try (TaskTestDriver driver = job().holdCalls().build()) {
      driver.pipe("pageviews", "u1", "/first");
      driver.pipe("pageviews", "u2", "/second");
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.outputs("enriched")).isEmpty();

      List<TaskTestDriver.Call> held = driver.heldCalls();
      held.get(1).release();
      held.get(0).release();
      assertThat(driver.values("enriched")).extracting(v -> ((String) v).split(",")[0])
          .containsExactly("/second", "/first");
    }
  }

  @Test
  void aUsersSecondPageViewIsLookedUpOnlyOnceItsFirstIsDone() {
    try (TaskTestDriver driver = job().holdCalls().build()) {
      driver.pipe("pageviews", "u1", "/first");
      driver.pipe("pageviews", "u1", "/second"); // task.ordering=key: it waits for the first
      driver.awaitCalls(Duration.ofSeconds(10));
      assertThat(driver.heldCalls()).extracting(c -> c.envelope().value())
          .containsExactly("/first");
      assertThat(driver.waiting()).isEqualTo(1);

      driver.heldCalls().get(0).release();
      driver.awaitCalls(Duration.ofSeconds(10));
      driver.heldCalls().get(0).release();
      assertThat(driver.values("enriched")).extracting(v -> ((String) v).split(",")[0])
          .containsExactly("/first", "/second");
    }
  }

  @Test
  void aPageViewWithoutAUserFailsItsCall() {
    try (TaskTestDriver driver = job().build()) {
      driver.pipe("pageviews", null, "/nobody");
      assertThatThrownBy(() -> driver.awaitCalls(Duration.ofSeconds(10)))
          .isInstanceOf(TaskFailure.class).hasMessageContaining("needs a user id");
    }
  }
}
