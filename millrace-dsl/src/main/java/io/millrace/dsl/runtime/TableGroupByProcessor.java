package io.millrace.dsl.runtime;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.dsl.plan.Node;
import java.util.Arrays;
import java.util.function.BiFunction;

/**
 * A table's changes re-grouped: the operator that keeps the table tells it a key's old value
 * ({@link #before}) before it writes the new one, and the change comes to {@link #process}; the
 * old value's (group key, value) pair is subtracted from its group and the new one's added,
 * both sent on as {@link TableChanges} keyed by their group (to the repartition). A deleted key,
 * or a pair with a null key or value, is in no group. A change that leaves the row's pair as it
 * was (the same bytes) sends nothing: an aggregate that updates on every record (a highest bid
 * per auction) re-groups only what moved. A value the selector or a serde fails on is in no
 * group: its old pair still leaves its group, then its record fails under the error policy.
 *
 * <p>As Kafka Streams does, the old pair is the selector applied to the old value, so no store
 * of its own is needed. The old pair is encoded in {@link #before}, ahead of the operator's
 * fold: an aggregator that changes its aggregate in place cannot change it afterwards.
 */
final class TableGroupByProcessor implements Processor {
  private final Node node;
  private final BiFunction<Object, Object, KeyValue<?, ?>> selector;
  private final Serde<Object> groupKeySerde;
  private final Serde<Object> valueSerde;
  private final Processor[] children;
  /** The old pair of the change on its way (null bytes: in no group), set by {@link #before}. */
  private Object lastGroup;
  private byte[] lastGroupBytes;
  private byte[] lastValueBytes;

  TableGroupByProcessor(Node node, BiFunction<Object, Object, KeyValue<?, ?>> selector,
      Serde<Object> groupKeySerde, Serde<Object> valueSerde, Processor[] children) {
    this.node = node;
    this.selector = selector;
    this.groupKeySerde = groupKeySerde;
    this.valueSerde = valueSerde;
    this.children = children;
  }

  /**
   * A table's key's value before the change that comes next (null: it had none). Never throws:
   * an old value the selector or a serde fails on was in no group (it failed the same way when
   * it came, and its record went by the error policy then), and the table's own write must not
   * fail for it, or the row could never change again.
   */
  void before(Object key, Object old) {
    lastGroup = null;
    lastGroupBytes = null;
    lastValueBytes = null;
    try {
      KeyValue<?, ?> pair = old == null ? null : selector.apply(key, old);
      if (pair != null && pair.key() != null && pair.value() != null) {
        byte[] group = groupKeySerde.toBytes(pair.key());
        lastValueBytes = valueSerde.toBytes(pair.value());
        lastGroupBytes = group;
        lastGroup = pair.key();
      }
    } catch (RuntimeException e) {
      lastValueBytes = null; // in no group
    }
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    Object group = null;
    byte[] groupBytes = null;
    byte[] valueBytes = null;
    RuntimeException failure = null;
    try {
      KeyValue<?, ?> pair = value == null ? null : selector.apply(key, value);
      if (pair != null && pair.key() != null && pair.value() != null) {
        byte[] g = groupKeySerde.toBytes(pair.key());
        valueBytes = valueSerde.toBytes(pair.value());
        groupBytes = g;
        group = pair.key();
      }
    } catch (RuntimeException e) {
      // The new value is in no group (as before() will take it at the row's next change): its
      // old pair still leaves its group, then the record fails under the error policy.
      failure = OperatorException.on(node, key, value, e);
      valueBytes = null;
    }
    change(group, groupBytes, valueBytes, timestamp);
    if (failure != null) {
      throw failure;
    }
  }

  /** Sends the change from the old pair {@link #before} took to the new one (null: none). */
  private void change(Object group, byte[] groupBytes, byte[] valueBytes, long timestamp) {
    byte[] oldGroup = lastGroupBytes;
    byte[] oldValue = lastValueBytes;
    Object old = lastGroup;
    lastGroupBytes = null; // each change is told its old value once
    lastValueBytes = null;
    lastGroup = null;
    if (oldGroup != null) {
      if (groupBytes != null && Arrays.equals(oldGroup, groupBytes)) {
        if (!Arrays.equals(oldValue, valueBytes)) {
          send(group, TableChanges.replace(oldValue, valueBytes), timestamp);
        } // else: the row's pair is as it was, its group has nothing to change
        return;
      }
      send(old, TableChanges.one(TableChanges.SUBTRACT, oldValue), timestamp);
    }
    if (groupBytes != null) {
      send(group, TableChanges.one(TableChanges.ADD, valueBytes), timestamp);
    }
  }

  private void send(Object group, byte[] change, long timestamp) {
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(group, change, timestamp);
    }
  }
}
