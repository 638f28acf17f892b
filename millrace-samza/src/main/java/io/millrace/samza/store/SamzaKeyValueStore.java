package io.millrace.samza.store;

import io.millrace.api.store.KeyValue;
import io.millrace.samza.serde.SameBytesSerde;
import io.millrace.samza.serde.SerdeUse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.samza.checkpoint.CheckpointId;
import org.apache.samza.serializers.Serde;
import org.apache.samza.storage.kv.Entry;
import org.apache.samza.storage.kv.KeyValueIterator;
import org.apache.samza.storage.kv.KeyValueSnapshot;
import org.apache.samza.storage.kv.KeyValueStore;

/**
 * Samza's {@link KeyValueStore} over a task's Millrace store, which holds the bytes of the
 * store's Samza serdes ({@code stores.<name>.key.serde}, {@code msg.serde}): what its files and
 * changelog hold is what Samza's would. Where Millrace has a serde of the same bytes
 * ({@link SameBytesSerde}: Samza's string and long serdes), the Millrace store is given it and
 * this store passes the task's objects through, refusing another class as Samza's serde would;
 * else this store applies Samza's serde. Without a serde, keys and values must be {@code byte[]},
 * as on Samza.
 *
 * <p>As on Samza (its {@code NullSafeKeyValueStore}, which every store of Samza's is wrapped in),
 * a null key or value is refused with Samza's {@code NullPointerException} and its message, and a
 * {@code putAll} with one writes none of its entries; range ends are inclusive-exclusive
 * in the serialized keys' unsigned byte order, and iterators must be closed. Writes reach the
 * engine and the changelog at Millrace's commits: {@link #flush} has nothing to force.
 *
 * <p>Threading: the task's loop thread, as Millrace's stores.
 */
public final class SamzaKeyValueStore<K, V> implements KeyValueStore<K, V> {
  /** Samza's own messages (NullSafeKeyValueStore), which a task may match on. */
  private static final String NULL_KEY = "Null is not a valid key.";
  private static final String NULL_KEYS = "Null is not a valid keys list.";
  private static final String NULL_VALUE = "Null is not a valid value.";
  private final io.millrace.api.store.KeyValueStore<Object, Object> store;
  private final Serde<Object> keySerde;
  private final Serde<Object> valueSerde;
  /** The class keys must be when the Millrace store serializes them, else null. */
  private final Class<?> keyType;
  /** The class values must be when the Millrace store serializes them, else null. */
  private final Class<?> valueType;
  /**
   * The last key serialized and its bytes, reused while the task passes the same key object: a
   * read-modify-write ({@code get(k)} then {@code put(k, ...)}) serializes its key once. Only
   * keys of immutable classes are kept (a mutable key object may change between two calls).
   * The two calls share the bytes: Millrace's stores never write into a key they are given.
   */
  private Object lastKey;
  private Object lastKeyBytes;

  /**
   * @param store the task's Millrace store, with {@code bytes} serdes
   * @param keySerde the Samza key serde, or null for {@code byte[]} keys
   * @param valueSerde the Samza value serde, or null for {@code byte[]} values
   */
  public SamzaKeyValueStore(io.millrace.api.store.KeyValueStore<Object, Object> store,
      Serde<Object> keySerde, Serde<Object> valueSerde) {
    this(store, keySerde, valueSerde, null, null);
  }

  /**
   * @param store the task's Millrace store, with {@code bytes} serdes or, for a key or value
   *     whose {@code sameKey}/{@code sameValue} is given, that one's Millrace serde
   * @param keySerde the Samza key serde, or null for {@code byte[]} keys or a {@code sameKey}
   * @param valueSerde the Samza value serde, or null for {@code byte[]} values or a
   *     {@code sameValue}
   * @param sameKey the Samza key serde whose bytes the Millrace store's makes, or null
   * @param sameValue the Samza value serde whose bytes the Millrace store's makes, or null
   */
  public SamzaKeyValueStore(io.millrace.api.store.KeyValueStore<Object, Object> store,
      Serde<Object> keySerde, Serde<Object> valueSerde, SameBytesSerde sameKey,
      SameBytesSerde sameValue) {
    this.store = store;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.keyType = sameKey == null ? null : sameKey.type();
    this.valueType = sameValue == null ? null : sameValue.type();
  }

  @Override
  public V get(K key) {
    return value(store.get(key(key)));
  }

  @Override
  public Map<K, V> getAll(List<K> keys) {
    if (keys == null) {
      throw new NullPointerException(NULL_KEYS);
    }
    Map<K, V> found = new HashMap<>();
    for (K key : keys) {
      V value = get(key);
      if (value != null) {
        found.put(key, value);
      }
    }
    return found;
  }

  @Override
  public void put(K key, V value) {
    Object k = key(key);
    store.put(k, valueOut(notNullValue(value)));
  }

  @Override
  public void putAll(List<Entry<K, V>> entries) {
    for (Entry<K, V> entry : entries) { // all checked before any is written, as on Samza
      key(entry.getKey());
      Object value = notNullValue(entry.getValue());
      if (valueType != null) {
        valueType.cast(value);
      }
    }
    List<KeyValue<Object, Object>> puts = new ArrayList<>(entries.size());
    for (Entry<K, V> entry : entries) {
      puts.add(new KeyValue<>(key(entry.getKey()), valueOut(entry.getValue())));
    }
    flushPuts(puts);
  }

  private static <V> V notNullValue(V value) {
    if (value == null) {
      throw new NullPointerException(NULL_VALUE);
    }
    return value;
  }

  /** What the Millrace store is given for {@code value}. */
  private Object valueOut(Object value) {
    return valueType != null ? valueType.cast(value) : SerdeUse.write(valueSerde, value);
  }

  private void flushPuts(List<KeyValue<Object, Object>> puts) {
    if (!puts.isEmpty()) {
      store.putAll(puts);
      puts.clear();
    }
  }

  @Override
  public void delete(K key) {
    store.delete(key(key));
  }

  @Override
  public void deleteAll(List<K> keys) {
    if (keys == null) {
      throw new NullPointerException(NULL_KEYS);
    }
    for (K key : keys) {
      delete(key);
    }
  }

  @Override
  public KeyValueIterator<K, V> range(K from, K to) {
    return new SamzaIterator<>(store.range(key(from), key(to)), keySerde, valueSerde);
  }

  @Override
  public KeyValueIterator<K, V> all() {
    return new SamzaIterator<>(store.all(), keySerde, valueSerde);
  }

  /**
   * The entries from {@code from} (inclusive) to {@code to} (exclusive) as they are now, however
   * the store changes after. Millrace's store has no snapshot handle, so the snapshot is a copy
   * of the range, made here: its memory is the range's.
   */
  @Override
  public KeyValueSnapshot<K, V> snapshot(K from, K to) {
    List<Entry<K, V>> entries = new ArrayList<>();
    KeyValueIterator<K, V> range = range(from, to); // Samza's iterators are not AutoCloseable
    try {
      while (range.hasNext()) {
        entries.add(range.next());
      }
    } finally {
      range.close();
    }
    return new CopiedSnapshot<>(entries);
  }

  /** Nothing to force: the store's writes reach its engine and changelog at each commit. */
  @Override
  public void flush() {}

  /** Nothing to release: the runtime closes the task's stores when the task leaves. */
  @Override
  public void close() {}

  /** Millrace checkpoints stores itself (their changelog offsets go with the input offsets). */
  @Override
  public Optional<Path> checkpoint(CheckpointId id) {
    return Optional.empty();
  }

  private Object key(K key) {
    if (key == null) {
      throw new NullPointerException(NULL_KEY);
    }
    if (keyType != null) {
      return keyType.cast(key); // the Millrace store serializes it
    }
    if (key == lastKey) {
      return lastKeyBytes;
    }
    Object bytes = SerdeUse.write(keySerde, key);
    if (keySerde != null && isImmutable(key)) {
      lastKey = key;
      lastKeyBytes = bytes;
    }
    return bytes;
  }

  private static boolean isImmutable(Object key) {
    Class<?> type = key.getClass();
    return type == String.class || type == Long.class || type == Integer.class;
  }

  @SuppressWarnings("unchecked")
  private V value(Object stored) {
    return (V) SerdeUse.read(valueSerde, stored);
  }
}
