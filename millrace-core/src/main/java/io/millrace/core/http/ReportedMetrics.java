package io.millrace.core.http;

import io.millrace.core.loop.PartitionState;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.system.MessageCounting;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The metrics the log and JMX reporters show: the registry's, except a partition's lag where the
 * loop cannot know it in messages (a file's offsets are byte positions, so its lag gauge reads -1):
 * there, its consumer's estimate, as {@code /metrics} and {@code /status} show it.
 */
public final class ReportedMetrics {
  private ReportedMetrics() {}

  /**
   * What the reporters read, read afresh at each call.
   *
   * @param loops the job's container loops, by container id
   * @param counts the consumers that count messages where offsets do not (files)
   */
  public static Supplier<Map<String, Map<String, Long>>> of(DefaultMetricsRegistry registry,
      List<RunLoop> loops, MessageCounts counts) {
    return () -> {
      Map<String, Map<String, Long>> snapshot = registry.snapshot();
      for (int c = 0; c < loops.size(); c++) {
        for (PartitionState p : loops.get(c).partitions()) {
          MessageCounting counting = counts.of(c, p);
          Map<String, Long> group = snapshot.get("task-" + p.taskNumber());
          String name = p.id().stream() + "-" + p.id().partition() + ".lag";
          if (counting == null || group == null || group.getOrDefault(name, 0L) >= 0) {
            continue;
          }
          long estimate = PartitionReading.of(p, counting).lag();
          if (estimate >= 0) {
            group.put(name, estimate);
          }
        }
      }
      return snapshot;
    };
  }
}
