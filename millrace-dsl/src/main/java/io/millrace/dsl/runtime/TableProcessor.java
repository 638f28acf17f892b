package io.millrace.dsl.runtime;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.plan.Node;

/**
 * A table in the task's instance of its store: a record's value becomes its key's (a null value
 * deletes the key), and the change is passed on with the record's event time.
 *
 * <p>Where the table is re-grouped, it keeps a copy of each value of its own (through its
 * serde): a store keeps the object it is given, and one that came from an aggregate whose
 * aggregator changes its aggregate in place would change under it, so the old value read for
 * the re-grouping would already be the new one.
 */
final class TableProcessor implements Processor {
  private final Node node;
  private final KeyValueStore<Object, Object> store;
  private final Processor[] children;
  /** Re-groupings of the table: told each key's old value first. */
  private final TableGroupByProcessor[] regroupings;
  /** The store's value serde, to copy values with where the table is re-grouped. */
  private final Serde<Object> valueSerde;

  TableProcessor(Node node, KeyValueStore<Object, Object> store, Processor[] children,
      TableGroupByProcessor[] regroupings, Serde<Object> valueSerde) {
    this.node = node;
    this.store = store;
    this.children = children;
    this.regroupings = regroupings;
    this.valueSerde = valueSerde;
  }

  @Override
  public void process(Object key, Object in, long timestamp) {
    Object value = in;
    try {
      if (key == null) {
        throw new NullPointerException("a table's record needs a key");
      }
      if (regroupings.length > 0) { // (a read and a copy only where a re-grouping needs them)
        Object old = store.get(key);
        for (TableGroupByProcessor regrouping : regroupings) {
          regrouping.before(key, old);
        }
        value = value == null ? null : valueSerde.fromBytes(valueSerde.toBytes(value));
      }
      if (value == null) {
        store.delete(key);
      } else {
        store.put(key, value);
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, in, e);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, value, timestamp);
    }
  }
}
