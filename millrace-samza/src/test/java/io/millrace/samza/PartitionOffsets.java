package io.millrace.samza;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the crash tests wait for in each partition's offsets: a checkpoint (Samza's, Millrace's,
 * a group's; each partition's last message processed) moving past another or reaching the end of
 * the input, and Kafka transactions open on a topic. Shared by {@link SamzaCrashTripTest}, {@link
 * SamzaGroupCrashTest} and {@link SamzaGroupCrashTripTest}.
 */
final class PartitionOffsets {
  private PartitionOffsets() {}

  /**
   * Whether each of the {@code partitions} partitions' offset in {@code now} is past its offset
   * in {@code from} (a partition missing from either: none yet).
   */
  static boolean movedPast(Map<Integer, Long> now, Map<Integer, Long> from, int partitions) {
    for (int p = 0; p < partitions; p++) {
      if (now.getOrDefault(p, -1L) <= from.getOrDefault(p, -1L)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether each partition's offset in {@code now} is at its last record of {@code written}
   * (each partition's count of records, written from offset 0 outside transactions), or past.
   */
  static boolean reachedTheEnd(Map<Integer, Long> now, long[] written) {
    for (int p = 0; p < written.length; p++) {
      if (now.getOrDefault(p, -1L) < written[p] - 1) {
        return false;
      }
    }
    return true;
  }

  /**
   * The partitions of {@code topic} a Kafka transaction is open on now: their end past their
   * last stable offset.
   */
  static List<Integer> openTransactions(TestKafka kafka, String topic, int partitions) {
    long[] all = kafka.endOffsets(topic, partitions, false);
    long[] stable = kafka.endOffsets(topic, partitions, true);
    List<Integer> open = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      if (all[p] > stable[p]) {
        open.add(p);
      }
    }
    return open;
  }

  /** Whether no Kafka transaction is open on {@code topic} (a killed process's stays open). */
  static boolean noOpenTransaction(TestKafka kafka, String topic, int partitions) {
    return openTransactions(kafka, topic, partitions).isEmpty();
  }
}
