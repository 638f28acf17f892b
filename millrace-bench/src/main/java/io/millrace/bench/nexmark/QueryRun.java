package io.millrace.bench.nexmark;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Times one query on one system in this JVM, the same way for all three: from the first input
 * record the query counted ({@link InputCounter}) to the last ({@code eps}), and from the
 * system's start to a clean stop ({@code whole_eps}); then, once every input record is in, waits
 * until neither the output topic nor any topic of the run (its repartitions and changelogs, named
 * after {@code run}) has grown for {@code quietMs} (windows closed by the end markers flushed,
 * repartitions drained), stops the system and prints
 * {@code RESULT nexmark-run system=... query=... records=... eps=... whole_eps=... cpu_us_per_record=...}.
 */
public final class QueryRun {
  /** Polled while it runs: a failed system ends the run at once. */
  public interface Stop {
    /** Stops the system cleanly (outputs flushed). */
    void stop() throws Exception;
  }

  /** No input for this long (after start-up) is a stalled run. */
  private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

  private QueryRun() {}

  /**
   * Waits for the run to finish; see the class comment.
   *
   * @param startNanos when the system was started
   * @param failure the system's failure, or null while it is well
   */
  public static void measure(String system, NexmarkQuery query, long records, String bootstrap,
      String outTopic, String run, long quietMs, long startNanos, long cpuAtStart,
      Supplier<Throwable> failure, Stop stop) throws Exception {
    long first = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    long seen = -1;
    long movedAt = System.nanoTime();
    while (true) {
      long c = InputCounter.get();
      long now = System.nanoTime();
      if (first == 0 && c > 0) {
        first = now;
      }
      if (c >= records) {
        break;
      }
      if (c != seen) {
        seen = c;
        movedAt = now;
      }
      // A system that stops taking input fails the run in a minute, not at the deadline.
      check(failure, now > deadline || now - movedAt > STALL_NANOS, system + " took in " + c
          + " of " + records + " input records and "
          + (now > deadline ? "ran out of its 20 minutes" : "has taken none for 60 s"));
      TimeUnit.MILLISECONDS.sleep(1);
    }
    long last = System.nanoTime();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      long size = -1;
      long grewAt = System.nanoTime();
      while (System.nanoTime() - grewAt < TimeUnit.MILLISECONDS.toNanos(quietMs)) {
        long now = outputSize(admin, outTopic);
        for (String topic : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
          if (topic.contains(run)) {
            now += outputSize(admin, topic);
          }
        }
        if (now != size) {
          size = now;
          grewAt = System.nanoTime();
        }
        check(failure, System.nanoTime() > deadline, system + ": its output never went quiet");
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    stop.stop();
    check(failure, false, "");
    long end = System.nanoTime();
    System.out.printf(Locale.ROOT, "RESULT nexmark-run system=%s query=%s records=%d eps=%.0f "
            + "whole_eps=%.0f cpu_us_per_record=%.3f%n", system, query.label(), records,
        records / ((last - first) / 1e9), records / ((end - startNanos) / 1e9),
        (cpuNanos() - cpuAtStart) / 1e3 / records);
  }

  private static void check(Supplier<Throwable> failure, boolean timedOut, String timeout)
      throws Exception {
    Throwable t = failure.get();
    if (t instanceof Exception e) {
      throw e;
    } else if (t != null) {
      throw new IllegalStateException(t);
    }
    if (timedOut) {
      throw new IllegalStateException(timeout);
    }
  }

  /** The records in a topic (its partitions' end offsets), uncommitted ones included. */
  static long outputSize(Admin admin, String topic) throws Exception {
    int partitions = admin.describeTopics(List.of(topic)).allTopicNames()
        .get(30, TimeUnit.SECONDS).get(topic).partitions().size();
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      specs.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    long total = 0;
    for (var info : admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).values()) {
      total += info.offset();
    }
    return total;
  }

  /** This JVM's CPU time so far. */
  public static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
