package io.millrace.core.store;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's store: deserialized objects in an LRU cache in front of a {@link StorageEngine}, with
 * writes kept as dirty entries until a flush.
 *
 * <p>Reads look in the cache, then in the dirty entries (an entry may leave the cache while still
 * dirty), then in the engine, so a task always reads its own writes. A flush (at each commit, when
 * {@code write.batch.size} entries are dirty, and before an iterator is opened) serializes the
 * dirty entries once, writes them to the engine as one batch and sends each to the changelog, in
 * the order they were first written. Hot keys therefore cost a hash lookup per read and write and
 * reach the engine and the changelog once per flush, however often they change.
 *
 * <p>Loop thread only.
 */
public final class CachedStore<K, V> implements KeyValueStore<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(CachedStore.class);
  /** In the cache: the key is known to have no value. */
  private static final Object ABSENT = new Object();
  /** In the dirty entries: the key was deleted. */
  private static final Object TOMBSTONE = new Object();

  private final String name;
  private final StorageEngine engine;
  private final Serde<K> keySerde;
  private final Serde<V> valueSerde;
  private final ChangelogWriter changelog;
  private final int writeBatchSize;
  private final LinkedHashMap<K, Object> cache;
  private final LinkedHashMap<K, Object> dirty = new LinkedHashMap<>();
  private final Set<StoreIterator> open = Collections.newSetFromMap(new IdentityHashMap<>());
  private final List<byte[]> batchKeys = new ArrayList<>();
  private final List<byte[]> batchValues = new ArrayList<>();
  private long flushedEntries;

  /**
   * A store over an engine.
   *
   * @param name the store and task, for messages ({@code counts of Partition 3})
   * @param changelog where flushed changes go, or null
   */
  @SuppressWarnings("unchecked") // the spec's serdes are declared for this store's types
  public CachedStore(String name, StoreSpec spec, StorageEngine engine, ChangelogWriter changelog) {
    this.name = name;
    this.engine = engine;
    this.keySerde = (Serde<K>) spec.keySerde();
    this.valueSerde = (Serde<V>) spec.valueSerde();
    this.changelog = changelog;
    this.writeBatchSize = Math.max(1, spec.writeBatchSize());
    int cacheSize = spec.cacheSize();
    this.cache = new LinkedHashMap<>(Math.min(cacheSize, 1 << 16) * 4 / 3 + 1, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, Object> eldest) {
        return size() > cacheSize; // a dirty entry stays in the dirty map until flushed
      }
    };
  }

  @Override
  @SuppressWarnings("unchecked") // the cache and the dirty map hold this store's values
  public V get(K key) {
    Objects.requireNonNull(key, "key");
    Object cached = cache.get(key);
    if (cached != null) {
      return cached == ABSENT ? null : (V) cached;
    }
    Object pending = dirty.get(key);
    if (pending != null) {
      return pending == TOMBSTONE ? null : (V) pending;
    }
    byte[] bytes = engine.get(serializeKey(key));
    V value = bytes == null ? null : deserializeValue(bytes);
    cache.put(key, value == null ? ABSENT : value);
    return value;
  }

  @Override
  public void put(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value (use delete to remove a key)");
    cache.put(key, value);
    dirty.put(key, value);
    if (dirty.size() >= writeBatchSize) {
      flush();
    }
  }

  @Override
  public void putAll(List<KeyValue<K, V>> entries) {
    for (KeyValue<K, V> entry : entries) {
      put(entry.key(), entry.value());
    }
  }

  @Override
  public void delete(K key) {
    Objects.requireNonNull(key, "key");
    cache.put(key, ABSENT);
    dirty.put(key, TOMBSTONE);
    if (dirty.size() >= writeBatchSize) {
      flush();
    }
  }

  @Override
  public KeyValueIterator<K, V> range(K from, K to) {
    return iterator(serializeKey(Objects.requireNonNull(from, "from")),
        serializeKey(Objects.requireNonNull(to, "to")));
  }

  @Override
  public KeyValueIterator<K, V> prefix(K prefix) {
    byte[] start = serializeKey(Objects.requireNonNull(prefix, "prefix"));
    return iterator(start, after(start));
  }

  @Override
  public KeyValueIterator<K, V> all() {
    return iterator(null, null);
  }

  /** The smallest key greater than every key starting with {@code prefix}, or null if none. */
  static byte[] after(byte[] prefix) {
    byte[] end = prefix.clone();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xFF) {
        end[i]++;
        return java.util.Arrays.copyOf(end, i + 1);
      }
    }
    return null; // all 0xFF: every greater key starts with the prefix
  }

  private KeyValueIterator<K, V> iterator(byte[] from, byte[] to) {
    flush(); // the engine must hold the task's writes before it is iterated
    StoreIterator iterator = new StoreIterator(engine.range(from, to));
    open.add(iterator);
    return iterator;
  }

  /** Writes the dirty entries to the engine in one batch and to the changelog. */
  public void flush() {
    if (dirty.isEmpty()) {
      return;
    }
    batchKeys.clear();
    batchValues.clear();
    for (Map.Entry<K, Object> entry : dirty.entrySet()) {
      batchKeys.add(serializeKey(entry.getKey()));
      batchValues.add(entry.getValue() == TOMBSTONE ? null : serializeValue(entry.getValue()));
    }
    engine.write(batchKeys, batchValues);
    if (changelog != null) {
      for (int i = 0; i < batchKeys.size(); i++) {
        changelog.send(batchKeys.get(i), batchValues.get(i));
      }
    }
    flushedEntries += batchKeys.size();
    dirty.clear();
    batchKeys.clear();
    batchValues.clear();
  }

  /** Entries written to the engine so far (a flushed key counts once per flush). */
  public long flushedEntries() {
    return flushedEntries;
  }

  /** Dirty entries waiting for a flush. */
  public int dirtyCount() {
    return dirty.size();
  }

  /** Closes iterators left open, saying where each was opened. Called at each commit. */
  public int closeLeakedIterators() {
    int leaked = open.size();
    for (StoreIterator iterator : new ArrayList<>(open)) {
      LOG.warn("store {}: an iterator was not closed; closing it now. It was opened here:", name,
          iterator.openedAt);
      iterator.close();
    }
    return leaked;
  }

  /** Closes the store: leaked iterators, then the engine. Dirty entries must be flushed first. */
  public void close() {
    closeLeakedIterators();
    engine.close();
  }

  /** The engine underneath. */
  public StorageEngine engine() {
    return engine;
  }

  private byte[] serializeKey(K key) {
    try {
      return keySerde.toBytes(key);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("store " + name + ": cannot serialize key " + key
          + " with " + keySerde.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  @SuppressWarnings("unchecked") // values put into this store are of its value type
  private byte[] serializeValue(Object value) {
    try {
      return valueSerde.toBytes((V) value);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("store " + name + ": cannot serialize value " + value
          + " with " + valueSerde.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  private V deserializeValue(byte[] bytes) {
    try {
      return valueSerde.fromBytes(bytes);
    } catch (RuntimeException e) {
      throw new IllegalStateException("store " + name + ": cannot deserialize a value with "
          + valueSerde.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  private K deserializeKey(byte[] bytes) {
    try {
      return keySerde.fromBytes(bytes);
    } catch (RuntimeException e) {
      throw new IllegalStateException("store " + name + ": cannot deserialize a key with "
          + keySerde.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /** An engine iterator that deserializes, and knows where it was opened. */
  private final class StoreIterator implements KeyValueIterator<K, V> {
    private final StorageEngine.EngineIterator cursor;
    final Throwable openedAt = new Throwable("iterator opened here");
    private boolean ready;
    private boolean more;
    private boolean closed;

    StoreIterator(StorageEngine.EngineIterator cursor) {
      this.cursor = cursor;
    }

    @Override
    public boolean hasNext() {
      if (closed) {
        return false;
      }
      if (!ready) {
        more = cursor.next();
        ready = true;
      }
      return more;
    }

    @Override
    public KeyValue<K, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException(closed ? "the iterator is closed" : "no more entries");
      }
      ready = false;
      return new KeyValue<>(deserializeKey(cursor.key()), deserializeValue(cursor.value()));
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        cursor.close();
        open.remove(this);
      }
    }
  }
}
