package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.dsl.function.Aggregator;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.Plan;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.serde.LongSerde;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.Windows;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * Records grouped by key, for an aggregate per key in a store you name. Each aggregate passes on
 * every update of a key (its new value, with the record's event time).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class GroupedStream<K, V> {
  private final StreamGraph graph;
  private final Node node;
  private final boolean repartition;
  private final Grouped<K, V> grouped;

  GroupedStream(StreamGraph graph, Node node, boolean repartition, Grouped<K, V> grouped) {
    this.graph = graph;
    this.node = node;
    this.repartition = repartition;
    this.grouped = grouped;
  }

  /** The number of records per key, in {@code stored} (long values unless given). */
  public MessageStream<K, Long> count(Stored<K, Long> stored) {
    return aggregate("count", stored, new LongSerde(), Aggregation.count());
  }

  /** Each key's values combined by {@code reducer}, in {@code stored} (its value serde needed). */
  @SuppressWarnings("unchecked")
  public MessageStream<K, V> reduce(Stored<K, V> stored, BinaryOperator<V> reducer) {
    return aggregate("reduce", stored, null, new Aggregation(Aggregation.Kind.REDUCE, null,
        (k, v, a) -> reducer.apply((V) a, (V) v), (a, b) -> reducer.apply((V) a, (V) b)));
  }

  /**
   * Each key's records folded into an aggregate from {@code initializer}, in {@code stored} (its
   * value serde needed).
   */
  @SuppressWarnings("unchecked")
  public <A> MessageStream<K, A> aggregate(Stored<K, A> stored, Supplier<A> initializer,
      Aggregator<? super K, ? super V, A> aggregator) {
    return aggregate("aggregate", stored, null, new Aggregation(Aggregation.Kind.AGGREGATE,
        initializer::get, (k, v, a) -> aggregator.apply((K) k, (V) v, (A) a), null));
  }

  /**
   * The records in windows of event time, for an aggregate per key and window.
   *
   * @throws ConfigException if the windows' grace was not stated
   */
  public WindowedStream<K, V> windowedBy(Windows windows) {
    if (windows == null || windows.graceMs() < 0) {
      throw new ConfigException("windowedBy at " + node.path() + ": state the windows' grace, "
          + "e.g. Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ofSeconds(10)) "
          + "(Duration.ZERO for none): it is how long a window waits for late records before its "
          + "final result is emitted");
    }
    return new WindowedStream<>(this, windows, null, null, null);
  }

  StreamGraph graph() {
    return graph;
  }

  private <A> MessageStream<K, A> aggregate(String operator, Stored<K, A> stored,
      Serde<A> defaultValueSerde, Aggregation aggregation) {
    StoreDef store = store(operator, stored, defaultValueSerde);
    Node upstream = upstream(store);
    Node node = graph.plan().add(new Op.Aggregate(store, aggregation),
        upstream.path() + "/" + operator + ":" + store.name(), false, upstream);
    return new MessageStream<>(graph, node);
  }

  /** The store of an operator, checked: its name is required, and what it stores must be known. */
  StoreDef store(String operator, Stored<?, ?> stored, Serde<?> defaultValueSerde) {
    return storeOf(operator + " after " + node.path(), operator, stored, null, defaultValueSerde);
  }

  /**
   * A store the user named, checked.
   *
   * @param where the operator in a message, e.g. {@code count after views/map}
   * @param defaultKeySerde the key serde if {@code stored} states none, or null for strings
   */
  static StoreDef storeOf(String where, String operator, Stored<?, ?> stored,
      Serde<?> defaultKeySerde, Serde<?> defaultValueSerde) {
    if (stored == null) {
      throw new ConfigException(where + " needs a store name: " + operator
          + "(Stored.as(\"<name>\"), ...)");
    }
    Plan.checkName(stored.name, "the store name of " + where);
    Serde<?> valueSerde = stored.valueSerde != null ? stored.valueSerde : defaultValueSerde;
    if (valueSerde == null) {
      throw new ConfigException(where + " (store " + stored.name + ") needs the serde of what it "
          + "stores: Stored.as(\"" + stored.name + "\").withValueSerde(...)");
    }
    Serde<?> keySerde = stored.keySerde != null ? stored.keySerde
        : defaultKeySerde != null ? defaultKeySerde : new StringSerde();
    return new StoreDef(stored.name, keySerde, valueSerde);
  }

  /**
   * Where the aggregate takes its records from: this stream, or, when its keys may have left
   * their partitions, a repartition through {@code <store>-repartition}, a stream the job writes
   * and reads back, so that each key's records meet in one task.
   */
  Node upstream(StoreDef store) {
    if (!repartition) {
      return node;
    }
    Serde<?> keySerde = grouped.keySerde != null ? grouped.keySerde : store.keySerde();
    return graph.repartition(node, store.name() + "-repartition", keySerde, grouped.valueSerde);
  }

  /** A table of this stream's records in a store the user names (a null value deletes). */
  <T> Table<K, T> table(Stored<K, T> stored) {
    StoreDef store = store("toTable", stored, grouped.valueSerde);
    Node upstream = upstream(store);
    Node table = graph.plan().add(new Op.Table(store),
        upstream.path() + "/table:" + store.name(), false, upstream);
    return new Table<>(graph, table, store);
  }

}
