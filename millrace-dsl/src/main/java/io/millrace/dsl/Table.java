package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.function.ValueJoiner;
import io.millrace.dsl.plan.JoinKind;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.StoreDef;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * A table: each key's latest value, in a store you named ({@link StreamGraph#table},
 * {@link MessageStream#toTable}), or an aggregate's store ({@link MessageStream#toTable()} after
 * {@code count}, {@code reduce} or {@code aggregate}). A record with a null value deletes its
 * key. Each task holds the keys of its partitions, so what is joined with a table must be
 * co-partitioned with it (checked when the job is planned).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class Table<K, V> {
  final StreamGraph graph;
  final Node node;
  final StoreDef store;

  Table(StreamGraph graph, Node node, StoreDef store) {
    this.graph = graph;
    this.node = node;
    this.store = store;
  }

  /** The store the table is kept in. */
  public String storeName() {
    return store.name();
  }

  /**
   * The table's changes as a stream, as they happen: each key's new value with the event time of
   * the record that changed it; a deleted key's value is null.
   */
  public MessageStream<K, V> toStream() {
    return new MessageStream<>(graph, graph.plan().add(new Op.Pass("toStream"),
        node.path() + "/toStream", false, node));
  }

  /**
   * This table joined with {@code other} by key into a table in {@code stored}: a key is in it
   * while it is in both; each change of either side changes the result, passed on as a change
   * (a key that leaves the result: a null value).
   */
  public <VO, R> Table<K, R> join(Table<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, Stored<K, R> stored) {
    return join(JoinKind.INNER, other, joiner, stored);
  }

  /** As {@link #join}, a key being in the result while it is in this table ({@code other}'s value null where it has none). */
  public <VO, R> Table<K, R> leftJoin(Table<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, Stored<K, R> stored) {
    return join(JoinKind.LEFT, other, joiner, stored);
  }

  /** As {@link #join}, a key being in the result while it is in either table (the other's value null). */
  public <VO, R> Table<K, R> outerJoin(Table<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, Stored<K, R> stored) {
    return join(JoinKind.OUTER, other, joiner, stored);
  }

  /**
   * The rows {@code predicate} holds for, as a table in a store you name (its value serde this
   * table's unless {@code stored} gives one): a row that stops holding leaves it, passed on as a
   * null value. Kafka Streams' {@code KTable#filter}; a stream's {@code filter} would keep such a
   * row's last value instead.
   */
  @SuppressWarnings("unchecked")
  public Table<K, V> filter(BiPredicate<? super K, ? super V> predicate, Stored<K, V> stored) {
    if (predicate == null) {
      throw new ConfigException("filter of table " + node.path() + " needs a predicate");
    }
    return derived("filter", (k, v) -> v != null && predicate.test((K) k, (V) v) ? v : null,
        stored, store.valueSerde());
  }

  /**
   * Each row's value mapped, as a table in a store you name ({@code stored} gives its value
   * serde); a deleted row stays deleted (the mapper never sees a null). Kafka Streams'
   * {@code KTable#mapValues}.
   */
  @SuppressWarnings("unchecked")
  public <V2> Table<K, V2> mapValues(Function<? super V, ? extends V2> mapper,
      Stored<K, V2> stored) {
    if (mapper == null) {
      throw new ConfigException("mapValues of table " + node.path() + " needs a mapper");
    }
    return derived("mapValues", (k, v) -> v == null ? null : mapper.apply((V) v), stored, null);
  }

  /** A table of each row's value through {@code fn} (null: the row is not in it). */
  private <V2> Table<K, V2> derived(String operator, BiFunction<Object, Object, Object> fn,
      Stored<K, V2> stored, Serde<?> defaultValueSerde) {
    String where = operator + " of table " + node.path();
    StoreDef result = GroupedStream.storeOf(where, operator, stored, store.keySerde(),
        defaultValueSerde);
    Node mapped = graph.plan().add(new Op.TableValues("table " + operator, fn),
        node.path() + "/" + operator + ":" + result.name(), false, node);
    Node table = graph.plan().add(new Op.Table(result),
        mapped.path() + "/table:" + result.name(), false, mapped);
    return new Table<>(graph, table, result);
  }

  /**
   * This table's rows re-grouped by {@code selector}'s (group key, value) pair, for an aggregate
   * per group that follows every change: a changed row's new pair is added to its group and its
   * old pair subtracted from the one it was in (a deleted row's only subtracted). The changes go
   * through a repartition, so {@code grouped} must give the pair's serdes (the value serde is
   * needed even on the embedded default: a change crosses as bytes, and a row whose pair did not
   * change is found by them and sends nothing). A pair with a null key or value is in no group.
   * The old pair is the selector applied to the row's old value, so the selector must give the
   * same pair for the same row each time. Kafka Streams' {@code KTable#groupBy}.
   */
  @SuppressWarnings("unchecked")
  public <KR, VR> GroupedTable<KR, VR> groupBy(
      BiFunction<? super K, ? super V, KeyValue<KR, VR>> selector, Grouped<KR, VR> grouped) {
    String where = "groupBy of table " + node.path();
    if (selector == null) {
      throw new ConfigException(where + " needs a selector of the (group key, value) pair");
    }
    if (grouped == null || grouped.valueSerde == null) {
      throw new ConfigException(where + " needs the serde of the values it groups: "
          + "groupBy(selector, Grouped.with(keySerde, valueSerde)) (a row's change crosses "
          + "a repartition to its groups as bytes)");
    }
    return new GroupedTable<>(graph, node, (k, v) -> selector.apply((K) k, (V) v), grouped);
  }

  @SuppressWarnings("unchecked")
  private <VO, R> Table<K, R> join(JoinKind kind, Table<K, VO> other,
      ValueJoiner<? super V, ? super VO, ? extends R> joiner, Stored<K, R> stored) {
    String where = "table-table " + kind.word() + " of " + node.path();
    if (other == null || other.graph != graph) {
      throw new ConfigException(where + ": the other table is "
          + (other == null ? "missing" : "of another pipeline"));
    }
    if (joiner == null) {
      throw new ConfigException(where + " needs a joiner");
    }
    StoreDef result = GroupedStream.storeOf(where, kind.word(), stored, store.keySerde(), null);
    String path = kind.word() + "(" + node.path() + "," + other.node.path() + "):"
        + result.name();
    Node left = graph.plan().add(new Op.JoinSide(true), path + "/left", false, node);
    Node right = graph.plan().add(new Op.JoinSide(false), path + "/right", false, other.node);
    Node join = graph.plan().add(new Op.TableTableJoin(result, store.name(), other.store.name(),
        kind, (l, r) -> joiner.apply((V) l, (VO) r)), path, false, left, right);
    return new Table<>(graph, join, result);
  }
}
