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
  /** The old pair of the change on its way, set by {@link #before}; the new one's. */
  private final Selection last = new Selection();
  private final Selection now = new Selection();

  /**
   * A row's (group key, value) pair, encoded; none while {@code groupBytes} is null. Two are
   * kept and filled again for each change: no allocation of its own on the way.
   */
  private static final class Selection {
    Object group;
    byte[] groupBytes;
    byte[] valueBytes;

    void clear() {
      group = null;
      groupBytes = null;
      valueBytes = null;
    }

    boolean sameGroup(Selection other) {
      return groupBytes != null && Arrays.equals(groupBytes, other.groupBytes);
    }
  }

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
    try {
      select(key, old, last);
    } catch (RuntimeException e) {
      last.clear(); // in no group
    }
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    RuntimeException failure = null;
    try {
      select(key, value, now);
    } catch (RuntimeException e) {
      // The new value is in no group (as before() will take it at the row's next change): its
      // old pair still leaves its group, then the record fails under the error policy.
      now.clear();
      failure = OperatorException.on(node, key, value, e);
    }
    try {
      change(timestamp);
    } finally {
      last.clear(); // each change is told its old value once
      now.clear();
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Fills {@code into} with the pair {@code value} selects, or none. */
  private void select(Object key, Object value, Selection into) {
    into.clear();
    KeyValue<?, ?> pair = value == null ? null : selector.apply(key, value);
    if (pair != null && pair.key() != null && pair.value() != null) {
      byte[] group = groupKeySerde.toBytes(pair.key());
      into.valueBytes = valueSerde.toBytes(pair.value());
      into.groupBytes = group;
      into.group = pair.key();
    }
  }

  /** Sends the change from the old pair to the new one. */
  private void change(long timestamp) {
    if (last.groupBytes != null) {
      if (last.sameGroup(now)) {
        if (!Arrays.equals(last.valueBytes, now.valueBytes)) {
          send(now.group, TableChanges.replace(last.valueBytes, now.valueBytes), timestamp);
        } // else: the row's pair is as it was, its group has nothing to change
        return;
      }
      send(last.group, TableChanges.one(TableChanges.SUBTRACT, last.valueBytes), timestamp);
    }
    if (now.groupBytes != null) {
      send(now.group, TableChanges.one(TableChanges.ADD, now.valueBytes), timestamp);
    }
  }

  private void send(Object group, byte[] change, long timestamp) {
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(group, change, timestamp);
    }
  }
}
