package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.function.ValueJoiner;
import io.millrace.dsl.plan.JoinKind;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.JoinWindows;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
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
  /** The most calls in flight mapAsync takes: the runtime's bound on task.max.concurrency. */
  static final int MAX_IN_FLIGHT = 100_000;
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

  /**
   * A new value for each record from a call that completes later (a look-up in a remote
   * service), its key and event time kept: the record goes on when the call's stage completes,
   * on the thread that completes it. The job runs on the async runtime: at most
   * {@code maxInFlight} calls of a task at once, one at a time per key, so each key's records come
   * out in the order they came in (records of other keys pass a slow one). A stage that fails,
   * or a mapper that throws, fails the record under {@code task.error.policy}, naming this
   * operator. See docs/dsl.md for where it may sit in a pipeline.
   *
   * @param mapper the call; it must not block, and must not return null
   * @param maxInFlight how many calls a task may have in flight, 1 to 100,000
   */
  @SuppressWarnings("unchecked")
  public <V2> MessageStream<K, V2> mapAsync(
      BiFunction<? super K, ? super V, ? extends CompletionStage<V2>> mapper, int maxInFlight) {
    if (maxInFlight < 1 || maxInFlight > MAX_IN_FLIGHT) {
      throw new ConfigException("mapAsync at " + node.path() + ": maxInFlight must be 1 to "
          + MAX_IN_FLIGHT + " (the runtime's task.max.concurrency), not " + maxInFlight);
    }
    return next(new Op.MapAsync((k, v) -> mapper.apply((K) k, (V) v), maxInFlight),
        node.keyChanged());
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
   * This stream's records through an intermediate stream you name, {@code <name>-repartition},
   * keyed by their key: afterwards each key's records are in the partition its key chooses, so
   * the aggregates and joins that follow repartition no more. Aggregates and joins repartition on
   * their own where a key changed; this one names the stream they share, and forces one where
   * none is needed (to spread a skewed input over the job's tasks, say).
   */
  public MessageStream<K, V> repartition(String name) {
    return repartition(name, Grouped.none());
  }

  /** As {@link #repartition(String)}, with the serdes of the repartition's records. */
  public MessageStream<K, V> repartition(String name, Grouped<K, V> grouped) {
    Plan.checkName(name, "the name of the repartition after " + node.path());
    Serde<?> keySerde = grouped.keySerde != null ? grouped.keySerde
        : new StringSerde();
    return new MessageStream<>(graph, graph.repartition(node, name + "-repartition", keySerde,
        grouped.valueSerde));
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

  /**
   * The table this stream's records make, in a store you name: each key's latest value (a null
   * value deletes the key), each change passed on. If a key was changed on the way here, the
   * records repartition first through {@code <store>-repartition}.
   */
  public Table<K, V> toTable(Stored<K, V> stored) {
    return new GroupedStream<K, V>(graph, node, node.keyChanged(), Grouped.none()).table(stored);
  }

  /**
   * The table an aggregate keeps, straight after {@code count}, {@code reduce} or
   * {@code aggregate}: its store is the table's, and this stream its changes.
   *
   * @throws ConfigException after any other operator: a table is state, and its store needs a
   *     name ({@link #toTable(Stored)})
   */
  public Table<K, V> toTable() {
    if (node.op() instanceof Op.Aggregate a) {
      return new Table<>(graph, node, a.store());
    }
    throw new ConfigException("toTable() after " + node.path() + ": the store name of the table "
        + "is missing (only an aggregate's stream is a table already, in its store): name the "
        + "store, toTable(Stored.as(\"<name>\"))");
  }

  /**
   * Each record joined with its key's current value in {@code table}, as the table stands when
   * the record is processed; a record whose key the table does not hold is dropped. If this
   * stream's key was changed, its records repartition first through {@code <name>-repartition}.
   * The stream and the table must be co-partitioned (checked when the job is planned).
   */
  public <VT, R> MessageStream<K, R> join(Table<K, VT> table,
      ValueJoiner<? super V, ? super VT, ? extends R> joiner, Joined<K, V> joined) {
    return join(JoinKind.INNER, table, joiner, joined);
  }

  /**
   * As {@link #join(Table, ValueJoiner, Joined)}, a record whose key the table does not hold
   * joined with null.
   */
  public <VT, R> MessageStream<K, R> leftJoin(Table<K, VT> table,
      ValueJoiner<? super V, ? super VT, ? extends R> joiner, Joined<K, V> joined) {
    return join(JoinKind.LEFT, table, joiner, joined);
  }

  @SuppressWarnings("unchecked")
  private <VT, R> MessageStream<K, R> join(JoinKind kind, Table<K, VT> table,
      ValueJoiner<? super V, ? super VT, ? extends R> joiner, Joined<K, V> joined) {
    String where = "stream-table " + kind.word() + " after " + node.path();
    if (joined == null) {
      throw new ConfigException(where + " needs a name: " + kind.word()
          + "(table, joiner, Joined.as(\"<name>\"))");
    }
    Plan.checkName(joined.name, "the name of " + where);
    if (table == null || table.graph != graph) {
      throw new ConfigException(where + ": the table is "
          + (table == null ? "missing" : "of another pipeline"));
    }
    if (joiner == null) {
      throw new ConfigException(where + " needs a joiner");
    }
    Node upstream = node;
    if (node.keyChanged()) {
      upstream = graph.repartition(node, joined.name + "-repartition",
          joined.keySerde != null ? joined.keySerde : table.store.keySerde(), joined.valueSerde);
    }
    Node join = plan().add(new Op.StreamTableJoin(joined.name, table.store.name(), kind,
        (l, r) -> joiner.apply((V) l, (VT) r)), upstream.path() + "/" + kind.word() + ":"
        + joined.name, false, upstream);
    plan().addRead(join, table.node);
    return new MessageStream<>(graph, join);
  }

  /**
   * Each record joined with the records of {@code other} with the same key at most the window's
   * time difference apart in event time (each match once, at the later of the two times). Both
   * sides wait in stores named from the join's name until their windows close.
   */
  public <VO, R> MessageStream<K, R> join(MessageStream<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, JoinWindows windows,
      StreamJoined<K, V, VO> joined) {
    return join(JoinKind.INNER, other, joiner, windows, joined);
  }

  /**
   * As {@link #join(MessageStream, ValueJoiner, JoinWindows, StreamJoined)}; a record of this
   * stream that matched nothing comes out joined with null once its window has closed, never
   * before (at its own time).
   */
  public <VO, R> MessageStream<K, R> leftJoin(MessageStream<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, JoinWindows windows,
      StreamJoined<K, V, VO> joined) {
    return join(JoinKind.LEFT, other, joiner, windows, joined);
  }

  /**
   * As {@link #leftJoin(MessageStream, ValueJoiner, JoinWindows, StreamJoined)}, for the records
   * of both streams (a record of {@code other} without a match: the left value null).
   */
  public <VO, R> MessageStream<K, R> outerJoin(MessageStream<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, JoinWindows windows,
      StreamJoined<K, V, VO> joined) {
    return join(JoinKind.OUTER, other, joiner, windows, joined);
  }

  @SuppressWarnings("unchecked")
  private <VO, R> MessageStream<K, R> join(JoinKind kind, MessageStream<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, JoinWindows windows,
      StreamJoined<K, V, VO> joined) {
    String where = "windowed " + kind.word() + " after " + node.path();
    if (joined == null) {
      throw new ConfigException(where + " needs a name: " + kind.word()
          + "(other, joiner, windows, StreamJoined.as(\"<name>\").withValueSerdes(...))");
    }
    Plan.checkName(joined.name, "the name of " + where);
    if (other == null || other.graph != graph) {
      throw new ConfigException(where + ": the other stream is "
          + (other == null ? "missing" : "of another pipeline"));
    }
    if (joiner == null) {
      throw new ConfigException(where + " needs a joiner");
    }
    if (windows == null || windows.graceMs() < 0) {
      throw new ConfigException(where + " (" + joined.name + "): state the join window's grace, "
          + "e.g. JoinWindows.of(Duration.ofMinutes(5)).grace(Duration.ofSeconds(10)) "
          + "(Duration.ZERO for none): it is how long records wait for late matches before a "
          + "record without one is emitted");
    }
    if (joined.leftSerde == null || joined.rightSerde == null) {
      throw new ConfigException(where + " (" + joined.name + ") needs the serdes of both sides' "
          + "values, for the stores they wait in: StreamJoined.as(\"" + joined.name
          + "\").withValueSerdes(...)");
    }
    Serde<?> keySerde = joined.keySerde != null ? joined.keySerde
        : new StringSerde();
    StoreDef left = new StoreDef(joined.name + "-left", keySerde, joined.leftSerde, true);
    StoreDef right = new StoreDef(joined.name + "-right", keySerde, joined.rightSerde, true);
    Node leftInput = node.keyChanged() ? graph.repartition(node,
        joined.name + "-left-repartition", keySerde, joined.leftSerde) : node;
    Node rightInput = other.node.keyChanged() ? graph.repartition(other.node,
        joined.name + "-right-repartition", keySerde, joined.rightSerde) : other.node;
    String path = kind.word() + "(" + leftInput.path() + "," + rightInput.path() + "):"
        + joined.name;
    Node leftSide = plan().add(new Op.JoinSide(true), path + "/left", false, leftInput);
    Node rightSide = plan().add(new Op.JoinSide(false), path + "/right", false, rightInput);
    Node join = plan().add(new Op.StreamStreamJoin(joined.name, left, right, windows, kind,
        (l, r) -> joiner.apply((V) l, (VO) r)), path, false, leftSide, rightSide);
    return new MessageStream<>(graph, join);
  }

  private <K2, V2> MessageStream<K2, V2> next(Op op, boolean keyChanged) {
    return new MessageStream<>(graph, plan().add(op, node.path() + "/" + op.kind(), keyChanged,
        node));
  }

  private Plan plan() {
    return graph.plan();
  }
}
