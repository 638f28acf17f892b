package io.millrace.dsl.runtime;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.function.Aggregator;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.plan.Node;

/**
 * A running aggregate per group of a re-grouped table ({@link TableGroupByProcessor}'s changes,
 * read back from the repartition): an added value folds in, a subtracted one out, a replaced one
 * both, then the group's new aggregate is passed on. A group whose aggregate comes out null (a
 * subtractor that says the group is empty) is deleted and passed on as null; a subtraction from
 * a group that holds nothing is dropped.
 */
final class TableAggregateProcessor implements Processor {
  private final Node node;
  private final Aggregation adder;
  private final Aggregator<Object, Object, Object> subtractor;
  private final Serde<Object> valueSerde;
  private final KeyValueStore<Object, Object> store;
  private final Processor[] children;
  /** Re-groupings of this table in turn: told each group's old aggregate first. */
  private final TableGroupByProcessor[] regroupings;

  TableAggregateProcessor(Node node, Aggregation adder,
      Aggregator<Object, Object, Object> subtractor, Serde<Object> valueSerde,
      KeyValueStore<Object, Object> store, Processor[] children,
      TableGroupByProcessor[] regroupings) {
    this.node = node;
    this.adder = adder;
    this.subtractor = subtractor;
    this.valueSerde = valueSerde;
    this.store = store;
    this.children = children;
    this.regroupings = regroupings;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    Object next;
    try {
      if (key == null) {
        throw new NullPointerException("a group's change needs a key");
      }
      if (!(value instanceof byte[] change)) {
        throw new IllegalArgumentException("not a table change: "
            + (value == null ? "null" : value.getClass().getName()));
      }
      byte kind = TableChanges.kind(change);
      Object current = store.get(key);
      for (TableGroupByProcessor regrouping : regroupings) {
        regrouping.before(key, current); // before the fold, which may change it in place
      }
      next = current;
      if (kind != TableChanges.ADD) {
        Object old = valueSerde.fromBytes(kind == TableChanges.REPLACE
            ? TableChanges.old(change) : TableChanges.value(change));
        // Only from an aggregate the group has (as Kafka Streams): a subtraction reaching a
        // group with none (after an at-least-once replay) would make one up, a count of -1.
        next = next == null ? null : subtractor.apply(key, old, next);
      }
      if (kind != TableChanges.SUBTRACT) {
        next = adder.fold(key, valueSerde.fromBytes(TableChanges.value(change)), next);
      }
      if (next == null) {
        if (current == null) {
          return;
        }
        store.delete(key);
      } else {
        store.put(key, next);
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, next, timestamp);
    }
  }
}
