package io.millrace.dsl.runtime;

import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.plan.Aggregation;
import io.millrace.dsl.plan.Node;

/**
 * A running aggregate per key ({@code count}, {@code reduce}, {@code aggregate}) in the task's
 * instance of the operator's store; each update is passed on with the record's event time.
 */
final class AggregateProcessor implements Processor {
  private final Node node;
  private final Aggregation aggregation;
  private final KeyValueStore<Object, Object> store;
  private final Processor[] children;
  /** Re-groupings of the aggregate as a table: told each key's old aggregate first. */
  private final TableGroupByProcessor[] regroupings;

  AggregateProcessor(Node node, Aggregation aggregation, KeyValueStore<Object, Object> store,
      Processor[] children, TableGroupByProcessor[] regroupings) {
    this.node = node;
    this.aggregation = aggregation;
    this.store = store;
    this.children = children;
    this.regroupings = regroupings;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    Object next;
    try {
      if (key == null) {
        throw new NullPointerException("a record to aggregate needs a key");
      }
      Object current = store.get(key);
      for (TableGroupByProcessor regrouping : regroupings) {
        regrouping.before(key, current); // before the fold, which may change it in place
      }
      next = aggregation.fold(key, value, current);
      if (next == null) {
        throw new NullPointerException("the aggregate came out null");
      }
      store.put(key, next);
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, next, timestamp);
    }
  }
}
