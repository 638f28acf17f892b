package io.millrace.dsl.runtime;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.function.ValueJoiner;
import io.millrace.dsl.plan.JoinKind;
import io.millrace.dsl.plan.Node;

/**
 * Two tables joined by key into a third, kept in its own store: a change of either side
 * recomputes its key's result from the change and the other side's store; a result is passed on
 * whenever there is one, and a key that leaves the result is deleted and passed on with a null
 * value (once: a key with no result before or after passes nothing).
 */
final class TableTableJoinProcessor {
  private final Node node;
  private final JoinKind kind;
  private final ValueJoiner<Object, Object, Object> joiner;
  private final KeyValueStore<Object, Object> leftStore;
  private final KeyValueStore<Object, Object> rightStore;
  private final KeyValueStore<Object, Object> result;
  private final Processor[] children;
  /** Re-groupings of the result: told each key's old result first. */
  private final TableGroupByProcessor[] regroupings;
  /** The result's value serde, to copy results with where the result is re-grouped. */
  private final Serde<Object> resultSerde;

  TableTableJoinProcessor(Node node, JoinKind kind, ValueJoiner<Object, Object, Object> joiner,
      KeyValueStore<Object, Object> leftStore, KeyValueStore<Object, Object> rightStore,
      KeyValueStore<Object, Object> result, Processor[] children,
      TableGroupByProcessor[] regroupings, Serde<Object> resultSerde) {
    this.node = node;
    this.kind = kind;
    this.joiner = joiner;
    this.leftStore = leftStore;
    this.rightStore = rightStore;
    this.result = result;
    this.children = children;
    this.regroupings = regroupings;
    this.resultSerde = resultSerde;
  }

  /** Where one side's changes come in. */
  Processor side(boolean left) {
    return left ? (k, v, ts) -> change(k, v, rightOf(k, v), ts, v)
        : (k, v, ts) -> change(k, leftOf(k, v), v, ts, v);
  }

  private Object rightOf(Object key, Object value) {
    try {
      return key == null ? null : rightStore.get(key);
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
  }

  private Object leftOf(Object key, Object value) {
    try {
      return key == null ? null : leftStore.get(key);
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
  }

  private void change(Object key, Object left, Object right, long timestamp, Object value) {
    Object next;
    try {
      if (key == null) {
        throw new NullPointerException("a table's record needs a key");
      }
      boolean joined = left != null && right != null
          || left != null && kind.keepsLeft()
          || right != null && kind.keepsRight();
      next = joined ? joiner.apply(left, right) : null;
      Object old = result.get(key);
      if (regroupings.length > 0) {
        for (TableGroupByProcessor regrouping : regroupings) {
          regrouping.before(key, old);
        }
        // Its own copy: a joiner may return a side's value, which that side's operator may
        // change in place (see TableProcessor).
        next = next == null ? null : resultSerde.fromBytes(resultSerde.toBytes(next));
      }
      if (next == null) {
        if (old == null) {
          return;
        }
        result.delete(key);
      } else {
        result.put(key, next);
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(key, next, timestamp);
    }
  }
}
