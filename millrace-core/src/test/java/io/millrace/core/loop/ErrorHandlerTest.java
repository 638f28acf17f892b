package io.millrace.core.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.api.metrics.Counter;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.output.TaskCollector;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ErrorHandlerTest {
  private final DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
  private final Counter skipped = metrics.counter("container-0", "skipped");
  private final Counter deadLettered = metrics.counter("container-0", "dead-lettered");
  private final TaskInstance task = new TaskInstance("Partition 0", 0,
      (StreamTask) (envelope, collector, coordinator) -> { }, new TaskCollector(Map.of(), "Partition 0"), null,
      1, List.of());
  private final Envelope message = new Envelope("in", 0, 42, null, "v", -1, 1);

  @ParameterizedTest
  @EnumSource(ErrorPolicy.class)
  void aFenceFoundByASendIsRethrownAsItIsAndChargedToNoMessage(ErrorPolicy policy) {
    // The dead letters are never reached: a write there would fail the test with an NPE.
    ErrorHandler errors = new ErrorHandler(policy, true, null, skipped, deadLettered);
    CommitFencedException fenced = new CommitFencedException("the broker aborted transaction t",
        null);

    assertThatThrownBy(() -> errors.failed(task, message, fenced)).isSameAs(fenced);
    assertThat(skipped.count()).isZero();
    assertThat(deadLettered.count()).isZero();
  }
}
