package io.millrace.dsl.runtime;

import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.time.WatermarkTracker;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * How far behind the watermark of the partitions that feed it each operator's input is (Flink's
 * and Beam's watermark hold): an operator that holds results back until the watermark passes
 * emits them with times behind it, so the operators after it must not judge them late.
 *
 * <p>At watermark {@code w}, a window with grace {@code g} has emitted every window ending
 * at or before {@code w - g}: what it still emits is stamped {@code w - g} or later (a window's
 * end less one). A stream-stream join of difference {@code d} and grace {@code g} still holds
 * unmatched records from {@code w - d - g} on, and its matches are no earlier than a record on
 * time ({@code w - g}). An operator's input watermark is its partitions' less the largest sum of
 * such holds on any path to it from a source; a repartition's source starts again from its
 * senders', who hold theirs back the same way.
 */
final class WatermarkHolds {
  private final Map<Node, Long> behind = new IdentityHashMap<>();

  /** How far behind its partitions' watermark the records coming into {@code node} may be. */
  long behind(Node node) {
    Long known = behind.get(node);
    if (known != null) {
      return known;
    }
    long most = 0;
    if (!(node.op() instanceof Op.Source)) {
      for (Node parent : node.parents()) {
        most = Math.max(most, behind(parent) + own(parent));
      }
    }
    behind.put(node, most);
    return most;
  }

  /** {@code watermark} less {@code hold}; none and the end stay as they are. */
  static long shift(long watermark, long hold) {
    if (watermark == WatermarkTracker.NONE || watermark == Long.MAX_VALUE) {
      return watermark;
    }
    return Math.max(WatermarkTracker.NONE + 1, watermark - hold);
  }

  private static long own(Node node) {
    if (node.op() instanceof Op.WindowAggregate w) {
      // A session's result carries its last record's time and comes out a gap and a grace later;
      // other windows' results carry their end and come out a grace later.
      return w.windows().session() ? w.windows().gapMs() + w.windows().graceMs()
          : w.windows().graceMs();
    }
    if (node.op() instanceof Op.StreamStreamJoin j) {
      return j.windows().differenceMs() + j.windows().graceMs();
    }
    return 0;
  }
}
