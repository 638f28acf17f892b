package io.millrace.samza.store;

import io.millrace.api.store.KeyValue;
import io.millrace.samza.serde.SerdeUse;
import org.apache.samza.serializers.Serde;
import org.apache.samza.storage.kv.Entry;
import org.apache.samza.storage.kv.KeyValueIterator;

/** Samza's iterator over a Millrace store's, each entry through the store's Samza serdes. */
final class SamzaIterator<K, V> implements KeyValueIterator<K, V> {
  private final io.millrace.api.store.KeyValueIterator<Object, Object> entries;
  private final Serde<Object> keySerde;
  private final Serde<Object> valueSerde;

  SamzaIterator(io.millrace.api.store.KeyValueIterator<Object, Object> entries,
      Serde<Object> keySerde, Serde<Object> valueSerde) {
    this.entries = entries;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  @Override
  public boolean hasNext() {
    return entries.hasNext();
  }

  @Override
  @SuppressWarnings("unchecked")
  public Entry<K, V> next() {
    KeyValue<Object, Object> next = entries.next();
    return new Entry<>((K) SerdeUse.read(keySerde, next.key()),
        (V) SerdeUse.read(valueSerde, next.value()));
  }

  @Override
  public void close() {
    entries.close();
  }
}
