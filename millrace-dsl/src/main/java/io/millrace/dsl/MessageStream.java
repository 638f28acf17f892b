package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * Records with keys and values, one after another per partition, each with its event time.
 * Operators return new streams and never change this one; records pass through them one at a
 * time on the task's thread, in order within a partition. An operator that throws fails the
 * record under the job's {@code task.error.policy}, with a message naming the operator.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class MessageStream<K, V> {
  final StreamGraph graph;
  final Node node;

  MessageStream(StreamGraph graph, Node node) {
    this.graph = graph;
    this.node = node;
  }

  /** A new key and value for each record (its event time kept). */
  @SuppressWarnings("unchecked")
  public <K2, V2> MessageStream<K2, V2> map(
      BiFunction<? super K, ? super V, KeyValue<K2, V2>> mapper) {
    return next(new Op.Map((k, v) -> mapper.apply((K) k, (V) v)), true);
  }

  /** A new value for each record, its key kept (so no repartition follows). */
  @SuppressWarnings("unchecked")
  public <V2> MessageStream<K, V2> mapValues(Function<? super V, ? extends V2> mapper) {
    return next(new Op.MapValues((k, v) -> mapper.apply((V) v)), node.keyChanged());
  }

  /** Only the records {@code predicate} holds for. */
  @SuppressWarnings("unchecked")
  public MessageStream<K, V> filter(BiPredicate<? super K, ? super V> predicate) {
    return next(new Op.Filter((k, v) -> predicate.test((K) k, (V) v)), node.keyChanged());
  }

  /** Zero or more records for each record, each with its event time. */
  @SuppressWarnings("unchecked")
  public <K2, V2> MessageStream<K2, V2> flatMap(
      BiFunction<? super K, ? super V, ? extends Iterable<KeyValue<K2, V2>>> mapper) {
    return next(new Op.FlatMap((k, v) -> mapper.apply((K) k, (V) v)), true);
  }

  /** Calls {@code action} with each record and passes it on unchanged. */
  @SuppressWarnings("unchecked")
  public MessageStream<K, V> peek(BiConsumer<? super K, ? super V> action) {
    return next(new Op.Peek((k, v) -> action.accept((K) k, (V) v)), node.keyChanged());
  }

  /** A new key for each record, its value kept. */
  @SuppressWarnings("unchecked")
  public <K2> MessageStream<K2, V> selectKey(BiFunction<? super K, ? super V, K2> selector) {
    return next(new Op.SelectKey((k, v) -> selector.apply((K) k, (V) v)), true);
  }

  /**
   * Each record to the first of the streams returned whose predicate holds for it (one stream
   * per predicate, in order); a record none holds for goes nowhere (end with
   * {@code (k, v) -> true} to keep the rest).
   */
  @SafeVarargs
  @SuppressWarnings("unchecked")
  public final List<MessageStream<K, V>> split(BiPredicate<? super K, ? super V>... predicates) {
    if (predicates.length == 0) {
      throw new IllegalArgumentException("split at " + node.path() + " needs a predicate");
    }
    List<BiPredicate<Object, Object>> erased = new ArrayList<>();
    for (BiPredicate<? super K, ? super V> p : predicates) {
      erased.add((k, v) -> p.test((K) k, (V) v));
    }
    Node split = plan().add(new Op.Split(erased), node.path() + "/split", node.keyChanged(),
        node);
    List<MessageStream<K, V>> branches = new ArrayList<>();
    for (int i = 0; i < predicates.length; i++) {
      branches.add(new MessageStream<>(graph, plan().add(new Op.Pass("branch"),
          split.path() + "[" + i + "]", node.keyChanged(), split)));
    }
    return branches;
  }

  /** This stream's records and {@code other}'s, as they come. */
  public MessageStream<K, V> merge(MessageStream<K, V> other) {
    if (other.graph != graph) {
      throw new IllegalArgumentException("merge at " + node.path() + ": the other stream is of "
          + "another pipeline");
    }
    return new MessageStream<>(graph, plan().add(new Op.Pass("merge"),
        "merge(" + node.path() + "," + other.node.path() + ")",
        node.keyChanged() || other.node.keyChanged(), node, other.node));
  }

  /** Writes each record to an output stream of the job, with the stream's own serdes. */
  public void to(String streamId) {
    to(streamId, null, null);
  }

  /**
   * Writes each record to an output stream of the job, with these serdes (public classes with a
   * no-argument constructor), its event time as the record's timestamp.
   */
  public void to(String streamId, Serde<K> keySerde, Serde<V> valueSerde) {
    Plan.checkName(streamId, "the stream of the sink after " + node.path());
    plan().add(new Op.Sink(streamId, keySerde, valueSerde, false), node.path() + "/to:" + streamId,
        node.keyChanged(), node);
  }

  /**
   * The records grouped by their key, for an aggregate. If a key was changed on the way here,
   * the aggregate repartitions first (through a stream named from its store).
   */
  public GroupedStream<K, V> groupByKey() {
    return groupByKey(Grouped.none());
  }

  /** As {@link #groupByKey()}, with the serdes of a repartition's records. */
  public GroupedStream<K, V> groupByKey(Grouped<K, V> grouped) {
    return new GroupedStream<>(graph, node, node.keyChanged(), grouped);
  }

  /** The records grouped by a new key; the aggregate repartitions first. */
  public <K2> GroupedStream<K2, V> groupBy(BiFunction<? super K, ? super V, K2> selector) {
    return groupBy(selector, Grouped.none());
  }

  /** As {@link #groupBy(BiFunction)}, with the serdes of the repartition's records. */
  public <K2> GroupedStream<K2, V> groupBy(BiFunction<? super K, ? super V, K2> selector,
      Grouped<K2, V> grouped) {
    MessageStream<K2, V> rekeyed = selectKey(selector);
    return new GroupedStream<>(graph, rekeyed.node, true, grouped);
  }

  private <K2, V2> MessageStream<K2, V2> next(Op op, boolean keyChanged) {
    return new MessageStream<>(graph, plan().add(op, node.path() + "/" + op.kind(), keyChanged,
        node));
  }

  private Plan plan() {
    return graph.plan();
  }
}
