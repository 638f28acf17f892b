package io.millrace.dsl.runtime;

import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.function.ValueJoiner;
import io.millrace.dsl.plan.JoinKind;
import io.millrace.dsl.plan.Node;

/**
 * A stream's records joined with the current value of their key in a table's store (read only:
 * the table's own operator keeps it), each result with the record's event time.
 */
final class StreamTableJoinProcessor implements Processor {
  private final Node node;
  private final JoinKind kind;
  private final ValueJoiner<Object, Object, Object> joiner;
  private final KeyValueStore<Object, Object> table;
  private final Processor[] children;

  StreamTableJoinProcessor(Node node, JoinKind kind, ValueJoiner<Object, Object, Object> joiner,
      KeyValueStore<Object, Object> table, Processor[] children) {
    this.node = node;
    this.kind = kind;
    this.joiner = joiner;
    this.table = table;
    this.children = children;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    Object result;
    try {
      Object match = key == null ? null : table.get(key);
      if (match == null && !kind.keepsLeft()) {
        return;
      }
      result = joiner.apply(value, match);
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, result, timestamp);
    }
  }
}
