package io.millrace.dsl.plan;

import io.millrace.api.config.ConfigException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a pipeline with a {@code mapAsync} must be, so that the runtime's async tasks can keep
 * its promises (calls bounded, one at a time per key, each record's results attributed to it):
 * <ul>
 *   <li>one {@code mapAsync} per pipeline: the bound is the task's {@code task.max.concurrency},
 *       which counts input records, so one record must make at most one call at a time;
 *   <li>between its source and it, only operators that keep the key and hold nothing
 *       ({@code filter}, {@code mapValues}, {@code peek}, {@code split}): the runtime keeps order
 *       by the input record's key ({@code task.ordering=key}), which must be the call's key;
 *   <li>after it, until a repartition or a sink, only operators that hold nothing: they run on
 *       the thread that completes the call, where no store may be touched (a {@code groupBy}
 *       after it repartitions first, so an aggregate of its results is allowed);
 *   <li>no windows or stream-stream joins in the pipeline: its results come out of event-time
 *       order by as many records as are in flight, and no watermark waits for them yet.
 * </ul>
 */
public final class AsyncRules {
  private AsyncRules() {}

  /**
   * The pipeline's {@code mapAsync}, or null if it has none.
   *
   * @throws ConfigException naming the operator that breaks a rule above
   */
  public static Node check(Plan plan) {
    List<Node> async = new ArrayList<>();
    List<Node> windowed = new ArrayList<>();
    Set<Node> seen = new HashSet<>();
    ArrayDeque<Node> next = new ArrayDeque<>(plan.sources().values());
    while (!next.isEmpty()) {
      Node node = next.poll();
      if (seen.add(node)) {
        if (node.op() instanceof Op.MapAsync) {
          async.add(node);
        } else if (node.op() instanceof Op.WindowAggregate
            || node.op() instanceof Op.StreamStreamJoin) {
          windowed.add(node);
        }
        next.addAll(node.children());
      }
    }
    if (async.isEmpty()) {
      return null;
    }
    Node node = async.get(0);
    if (async.size() > 1) {
      throw new ConfigException("a pipeline has one mapAsync at most, and " + node.describe()
          + " and " + async.get(1).describe() + " are two: the bound on calls in flight counts "
          + "input records, so make both calls in one mapAsync (thenCompose)");
    }
    if (!windowed.isEmpty()) {
      throw new ConfigException(windowed.get(0).describe() + " waits for the watermark, and "
          + node.describe() + " is in the same pipeline: windows and stream-stream joins are not "
          + "supported beside mapAsync yet (its results leave event-time order by the records in "
          + "flight)");
    }
    checkBefore(node, node);
    for (Node child : node.children()) {
      checkAfter(node, child);
    }
    return node;
  }

  private static void checkBefore(Node async, Node node) {
    for (Node parent : node.parents()) {
      Op op = parent.op();
      boolean keeps = op instanceof Op.Source || op instanceof Op.Filter
          || op instanceof Op.MapValues || op instanceof Op.Peek || op instanceof Op.Split
          || op instanceof Op.Pass;
      if (!keeps || parent.keyChanged()) {
        throw new ConfigException(async.describe() + " keeps order per key, by the key its "
            + "records came with, but " + parent.describe() + " is before it: only filter, "
            + "mapValues, peek, split and merge may come between a source and mapAsync (re-key "
            + "after it, or write the re-keyed records to a stream and read that)");
      }
      checkBefore(async, parent);
    }
  }

  private static void checkAfter(Node async, Node node) {
    Op op = node.op();
    if (op instanceof Op.Sink) {
      return; // a repartition's records are read back as messages of their own
    }
    boolean holdsNothing = op instanceof Op.Map || op instanceof Op.MapValues
        || op instanceof Op.Filter || op instanceof Op.FlatMap || op instanceof Op.Peek
        || op instanceof Op.SelectKey || op instanceof Op.Split
        || (op instanceof Op.Pass pass && pass.kind().equals("branch"));
    if (!holdsNothing) {
      throw new ConfigException(node.describe() + " comes after " + async.describe()
          + ", whose results go on on the thread that completes the call: only operators "
          + "that hold nothing (map, mapValues, filter, flatMap, peek, selectKey, split) and "
          + "sinks may follow it; to aggregate its results, groupBy((k, v) -> k) repartitions "
          + "them first");
    }
    for (Node child : node.children()) {
      checkAfter(async, child);
    }
  }
}
