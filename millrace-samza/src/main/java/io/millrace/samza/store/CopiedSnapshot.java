package io.millrace.samza.store;

import java.util.Iterator;
import java.util.List;
import org.apache.samza.storage.kv.Entry;
import org.apache.samza.storage.kv.KeyValueIterator;
import org.apache.samza.storage.kv.KeyValueSnapshot;

/** A snapshot as a copy of its entries: each {@link #iterator} goes over them again. */
final class CopiedSnapshot<K, V> implements KeyValueSnapshot<K, V> {
  private List<Entry<K, V>> entries;

  CopiedSnapshot(List<Entry<K, V>> entries) {
    this.entries = entries;
  }

  @Override
  public KeyValueIterator<K, V> iterator() {
    if (entries == null) {
      throw new IllegalStateException("the snapshot is closed");
    }
    Iterator<Entry<K, V>> it = entries.iterator();
    return new KeyValueIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Entry<K, V> next() {
        return it.next();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {
    entries = null;
  }
}
