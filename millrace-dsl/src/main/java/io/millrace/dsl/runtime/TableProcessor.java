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

  TableProcessor(Node node, KeyValueStore<Object, Object> store, Processor[] children) {
    this.node = node;
    this.store = store;
    this.children = children;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    try {
      if (key == null) {
        throw new NullPointerException("a table's record needs a key");
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
