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
      containerWide.inc();
      lastLength.set(((String) envelope.getMessage()).length());
      processing.update(7);
    }
  }

  @Test
  void aTasksCountersGaugesAndTimersAreReportedAsMillraceMetricsOfItsTask() throws Exception {
    String in = SamzaTestJobs.unique("in");
    MemoryStream input = SamzaTestJobs.input(in, 1);
    input.append(0, null, "one");
    input.append(0, null, "three");
    input.seal();
    Map<String, Map<String, Long>> metrics;
    try (RunningJob job = SamzaTestJobs.start(
        SamzaTestJobs.memoryJob(MeasuredTask.class, in, state))) {
      job.join();
      metrics = ((DefaultMetricsRegistry) job.metrics()).snapshot();
    }
    assertThat(metrics.get("task-0")).containsEntry("MeasuredTask-messages", 2L)
        .containsEntry("MeasuredTask-last-length", 5L)
        .containsEntry("MeasuredTask-process-count", 2L)
        .containsEntry("MeasuredTask-process-total", 14L);
    assertThat(metrics.get("samza-container")).containsEntry("MeasuredTask-all-messages", 2L);
  }
}
