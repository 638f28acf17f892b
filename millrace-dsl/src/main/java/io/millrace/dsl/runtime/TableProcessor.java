package io.millrace.dsl.runtime;

import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.plan.Node;

/**
 * A table in the task's instance of its store: a record's value becomes its key's (a null value
 * deletes the key), and the change is passed on with the record's event time.
 */
final class TableProcessor implements Processor {
  private final Node node;
  private final KeyValueStore<Object, Object> store;
  private final Processor[] children;
  /** Re-groupings of the table: told each key's old value first. */
  private final TableGroupByProcessor[] regroupings;

  TableProcessor(Node node, KeyValueStore<Object, Object> store, Processor[] children,
      TableGroupByProcessor[] regroupings) {
    this.node = node;
    this.store = store;
    this.children = children;
    this.regroupings = regroupings;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    try {
      if (key == null) {
        throw new NullPointerException("a table's record needs a key");
      }
      if (regroupings.length > 0) { // (a read only where a re-grouping needs the old value)
        Object old = store.get(key);
        for (TableGroupByProcessor regrouping : regroupings) {
          regrouping.before(key, old);
        }
      }
      if (value == null) {
        store.delete(key);
      } else {
        store.put(key, value);
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, value, timestamp);
    }
  }
}
