package io.millrace.samza;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.embed.RunningJob;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.system.memory.MemoryStream;
import java.nio.file.Path;
import java.util.Map;
import org.apache.samza.context.Context;
import org.apache.samza.metrics.Counter;
import org.apache.samza.metrics.Gauge;
import org.apache.samza.metrics.Timer;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.task.InitableTask;
import org.apache.samza.task.MessageCollector;
import org.apache.samza.task.StreamTask;
import org.apache.samza.task.TaskCoordinator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Samza's MetricsRegistry: a task's counters, gauges and timers reach Millrace's metrics. */
class SamzaMetricsTest {
  @TempDir Path state;

  /** Counts messages, keeps the last length as a gauge and times each message as 7 units. */
  public static final class MeasuredTask implements StreamTask, InitableTask {
    private Counter messages;
    private Gauge<Integer> lastLength;
    private Timer processing;
    private Counter containerWide;

    @Override
    public void init(Context context) {
      String group = "com.acme.MeasuredTask";
      messages = context.getTaskContext().getTaskMetricsRegistry().newCounter(group, "messages");
      lastLength = context.getTaskContext().getTaskMetricsRegistry()
          .newGauge(group, "last-length", 0);
      processing = context.getTaskContext().getTaskMetricsRegistry().newTimer(group, "process");
      containerWide = context.getContainerContext().getContainerMetricsRegistry()
          .newCounter(group, "all-messages");
    }

    @Override
    public void process(IncomingMessageEnvelope envelope, MessageCollector collector,
        TaskCoordinator coordinator) {
      messages.inc();
      lastLength.set(((String) envelope.getMessage()).length());
      processing.update(7);
      containerWide.inc(); // last: the test waits on it, then reads the others
    }
  }

  @Test
  void aTasksMetricsAreReportedAsMillraceMetricsOfItsTaskAndGoWhenTheTaskLeaves()
      throws Exception {
    String in = SamzaTestJobs.unique("in");
    MemoryStream input = SamzaTestJobs.input(in, 3);
    input.append(0, null, "one");
    input.append(0, null, "three");
    input.append(1, null, "four");
    input.append(2, null, "fifty");
    Map<String, Map<String, Long>> metrics;
    DefaultMetricsRegistry registry;
    try (RunningJob job = SamzaTestJobs.start(
        SamzaTestJobs.memoryJob(MeasuredTask.class, in, state))) {
      registry = (DefaultMetricsRegistry) job.metrics();
      io.millrace.core.testing.Await.until(io.millrace.core.testing.Await.DEADLINE,
          "every message measured", () -> registry.snapshot().getOrDefault("samza-container",
              Map.of()).getOrDefault("MeasuredTask-all-messages", 0L) == 4L);
      metrics = registry.snapshot();
      job.stop();
    }
    assertThat(metrics.get("task-0")).containsEntry("MeasuredTask-messages", 2L)
        .containsEntry("MeasuredTask-last-length", 5L)
        .containsEntry("MeasuredTask-process-count", 2L)
        .containsEntry("MeasuredTask-process-total", 14L);
    assertThat(metrics.get("task-1")).containsEntry("MeasuredTask-messages", 1L);
    // The container's registry is one for its tasks: their updates add up, as on Samza.
    assertThat(metrics.get("samza-container")).containsEntry("MeasuredTask-all-messages", 4L);
    // The tasks have left (the job stopped): their gauges went with them.
    Map<String, Map<String, Long>> after = registry.snapshot();
    for (String task : new String[] {"task-0", "task-1", "task-2"}) {
      assertThat(after.getOrDefault(task, Map.of())).doesNotContainKeys(
          "MeasuredTask-messages", "MeasuredTask-last-length", "MeasuredTask-process-count");
    }
  }
}
