package io.millrace.api.store;

import java.util.Iterator;

/**
 * Entries of a {@link KeyValueStore} in key order. It holds resources of the store (a RocksDB
 * iterator and snapshot) until closed: always close it, best with try-with-resources. An iterator
 * left open is reported (with where it was opened) at the next commit and closed then.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface KeyValueIterator<K, V> extends Iterator<KeyValue<K, V>>, AutoCloseable {
  /** Releases the iterator's resources; closing twice does nothing. */
  @Override
  void close();
}
