package io.millrace.dsl;

import io.millrace.api.Serde;
import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.function.Aggregator;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.plan.Node;
import io.millrace.dsl.plan.Op;
import io.millrace.dsl.plan.StoreDef;
import io.millrace.dsl.serde.BytesSerde;
import io.millrace.dsl.serde.LongSerde;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

/**
 * A table's rows re-grouped by a new key ({@link Table#groupBy}), for an aggregate per group in
 * a store you name, kept up to date as rows change: an adder folds a row's value in, a
 * subtractor takes the value a row had out when the row changes or leaves. The result is a
 * table; each update of a group is passed on as its change.
 *
 * <p>The aggregate's store name {@code N} also names the intermediate stream the changes go
 * through, {@code N-repartition}. A row's old value is the table's own, as the table's operator
 * had it before the change: the selector must give the same pair for the same row each time.
 *
 * @param <K> the group key type
 * @param <V> the grouped value type
 */
public final class GroupedTable<K, V> {
  private final StreamGraph graph;
  private final Node table;
  private final BiFunction<Object, Object, KeyValue<?, ?>> selector;
  private final Grouped<K, V> grouped;

  GroupedTable(StreamGraph graph, Node table,
      BiFunction<Object, Object, KeyValue<?, ?>> selector, Grouped<K, V> grouped) {
    this.graph = graph;
    this.table = table;
    this.selector = selector;
    this.grouped = grouped;
  }

  /** The number of rows per group, in {@code stored} (long values unless given). */
  public Table<K, Long> count(Stored<K, Long> stored) {
    return aggregate("count", stored, new LongSerde(), Aggregation.count(),
        (k, v, a) -> (Long) a - 1);
  }

  /**
   * Each group's values combined by {@code adder}, a changed row's old value taken out by
   * {@code subtractor}, in {@code stored} (the grouped value serde unless it gives one). A
   * subtractor that returns null empties the group: its key is deleted.
   */
  @SuppressWarnings("unchecked")
  public Table<K, V> reduce(Stored<K, V> stored, BinaryOperator<V> adder,
      BinaryOperator<V> subtractor) {
    requireFunctions("reduce", adder, subtractor);
    return aggregate("reduce", stored, grouped.valueSerde,
        new Aggregation(Aggregation.Kind.REDUCE, null,
            (k, v, a) -> adder.apply((V) a, (V) v), null),
        (k, v, a) -> subtractor.apply((V) a, (V) v));
  }

  /**
   * Each group's rows folded into an aggregate from {@code initializer} by {@code adder}, a
   * changed row's old value taken out by {@code subtractor}, in {@code stored} (its value serde
   * needed). A subtractor that returns null empties the group: its key is deleted.
   */
  @SuppressWarnings("unchecked")
  public <A> Table<K, A> aggregate(Stored<K, A> stored, Supplier<A> initializer,
      Aggregator<? super K, ? super V, A> adder, Aggregator<? super K, ? super V, A> subtractor) {
    requireFunctions("aggregate", adder, subtractor);
    if (initializer == null) {
      throw new ConfigException("aggregate after groupBy of table " + table.path()
          + " needs an initializer");
    }
    return aggregate("aggregate", stored, null, new Aggregation(Aggregation.Kind.AGGREGATE,
            initializer::get, (k, v, a) -> adder.apply((K) k, (V) v, (A) a), null),
        (k, v, a) -> subtractor.apply((K) k, (V) v, (A) a));
  }

  private void requireFunctions(String operator, Object adder, Object subtractor) {
    if (adder == null || subtractor == null) {
      throw new ConfigException(operator + " after groupBy of table " + table.path()
          + " needs " + (adder == null ? "an adder" : "a subtractor") + ": a table's rows "
          + "change, so what a row added to its group must be taken out again");
    }
  }

  private <A> Table<K, A> aggregate(String operator, Stored<K, A> stored,
      Serde<?> defaultValueSerde, Aggregation aggregation,
      Aggregator<Object, Object, Object> subtractor) {
    String where = operator + " after groupBy of table " + table.path();
    StoreDef store = GroupedStream.storeOf(where, operator, stored, grouped.keySerde,
        defaultValueSerde);
    Serde<?> groupKeySerde = grouped.keySerde != null ? grouped.keySerde : store.keySerde();
    Node groupBy = graph.plan().add(new Op.TableGroupBy(selector, groupKeySerde,
        grouped.valueSerde), table.path() + "/groupBy:" + store.name(), true, table);
    Node repartition = graph.repartition(groupBy, store.name() + "-repartition", groupKeySerde,
        new BytesSerde());
    Node node = graph.plan().add(new Op.TableAggregate(store, aggregation, subtractor,
            grouped.valueSerde), repartition.path() + "/table-" + operator + ":" + store.name(),
        false, repartition);
    return new Table<>(graph, node, store);
  }
}
