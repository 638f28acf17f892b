package io.millrace.dsl.runtime;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueStore;
import io.millrace.dsl.plan.Node;
import java.util.Arrays;
import java.util.function.BiFunction;

/**
 * A table's changes re-grouped: each change of a table key selects its new (group key, value)
 * pair, and the pair the key selected last, kept in the operator's own store, is subtracted from
 * its group; both go on as {@link TableChanges} keyed by their group (to the repartition). A
 * deleted key, or a pair with a null key or value, is in no group. A change that leaves the
 * row's pair as it was (the same bytes) sends nothing: an aggregate that updates on every record
 * (a highest bid per auction) re-groups only what moved.
 *
 * <p>Keeping the last pair, rather than asking the table for its old value as Kafka Streams
 * does, costs a store but needs nothing of the operator that made the table, and subtracts
 * exactly what was added even after the selector changed between deployments.
 */
final class TableGroupByProcessor implements Processor {
  private final Node node;
  private final BiFunction<Object, Object, KeyValue<?, ?>> selector;
  private final KeyValueStore<byte[], byte[]> previous;
  private final Serde<Object> tableKeySerde;
  private final Serde<Object> groupKeySerde;
  private final Serde<Object> valueSerde;
  private final Processor[] children;

  TableGroupByProcessor(Node node, BiFunction<Object, Object, KeyValue<?, ?>> selector,
      KeyValueStore<byte[], byte[]> previous, Serde<Object> tableKeySerde,
      Serde<Object> groupKeySerde, Serde<Object> valueSerde, Processor[] children) {
    this.node = node;
    this.selector = selector;
    this.previous = previous;
    this.tableKeySerde = tableKeySerde;
    this.groupKeySerde = groupKeySerde;
    this.valueSerde = valueSerde;
    this.children = children;
  }

  @Override
  public void process(Object key, Object value, long timestamp) {
    byte[] last;
    Object group = null;
    byte[] groupBytes = null;
    byte[] valueBytes = null;
    try {
      if (key == null) {
        throw new NullPointerException("a table's record needs a key");
      }
      byte[] tableKey = tableKeySerde.toBytes(key);
      last = previous.get(tableKey);
      KeyValue<?, ?> pair = value == null ? null : selector.apply(key, value);
      if (pair != null && pair.key() != null && pair.value() != null) {
        group = pair.key();
        groupBytes = groupKeySerde.toBytes(group);
        valueBytes = valueSerde.toBytes(pair.value());
        byte[] now = TableChanges.pair(groupBytes, valueBytes);
        if (Arrays.equals(now, last)) {
          return; // the row's pair is as it was: its group has nothing to change
        }
        previous.put(tableKey, now);
      } else if (last != null) {
        previous.delete(tableKey);
      }
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
    if (last != null) {
      byte[] lastGroup = TableChanges.pairKey(last);
      byte[] lastValue = TableChanges.pairValue(last);
      if (groupBytes != null && Arrays.equals(lastGroup, groupBytes)) {
        send(group, TableChanges.replace(lastValue, valueBytes), timestamp);
        return;
      }
      send(decodeGroup(lastGroup, key, value), TableChanges.one(TableChanges.SUBTRACT, lastValue),
          timestamp);
    }
    if (groupBytes != null) {
      send(group, TableChanges.one(TableChanges.ADD, valueBytes), timestamp);
    }
  }

  private Object decodeGroup(byte[] bytes, Object key, Object value) {
    try {
      return groupKeySerde.fromBytes(bytes);
    } catch (RuntimeException e) {
      throw OperatorException.on(node, key, value, e);
    }
  }

  private void send(Object group, byte[] change, long timestamp) {
    for (Processor child : children) { // (its own call: see PipelineRuntime#process)
      child.process(group, change, timestamp);
    }
  }
}
