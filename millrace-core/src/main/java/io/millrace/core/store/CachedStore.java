package io.millrace.core.store;
import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's store: deserialized objects in an LRU cache in front of a {@link StorageEngine}, with
 * writes kept as dirty entries until a flush.
 *
 * <p>One map ({@link CacheMap}) holds both: each cached key has an entry with its value (null:
 * known to have none) and a dirty flag, and the dirty entries are also listed in the order they
 * were first written. Reads look in the map, then in the engine, so a task always reads its own
 * writes. A flush (at each commit, when {@code write.batch.size} entries are dirty, before the
 * store's first iterator, and before a dirty entry would be evicted) serializes the dirty entries
 * once, writes them to the engine as one batch and sends each to the changelog, in first-write
 * order. Hot keys therefore
 * cost a hash lookup per read and write and reach the engine and the changelog once per flush,
 * however often they change.
 *
 * <p>A read-modify-write ({@code put(k, get(k) + 1)}) costs one lookup, not two: the entry the
 * last {@code get} found is kept and reused when the next call names the same key object.
 *
 * <p>The container's {@link StoreFlusher} may write a flush to the engine on its own thread while
 * the loop goes on. An entry leaves the cache only once the engine holds its value: until the
 * flusher has written its flush, it stays (the cache runs over its size by what the flusher is
 * behind, at most its queue of batches), so whatever a read does not find in the cache is in the
 * engine. Under exactly-once (a {@link StagedEngine} whose writes the flusher's thread makes),
 * "the engine holds it" means more: the engine underneath the staging holds it, once the commit
 * that sealed its flush applied it ({@link StagedEngine#appliedThrough}). The cache then runs over
 * its size by up to two commit intervals' entries, and a miss reads the engine underneath without
 * looking in the staged writes (which need no index then: see {@link StagedEngine}).
 *
 * <p><b>Ranges.</b> An iterator merges the engine's range with the cache's entries the engine may
 * not hold yet (dirty, or flushed in a batch the flusher has not written): such an entry's value
 * wins over the engine's, and its delete hides the engine's entry, in the store's byte order. To
 * find them in order, a store that was iterated once keeps them, by serialized key, in a sorted
 * map ({@link UnwrittenIndex}) from then on: a write that makes an entry dirty adds it (its key is
 * serialized then, and the flush reuses the bytes), and it leaves once the engine holds it (at a
 * flush done here, or when the flusher has written the batch). A store never iterated keeps no
 * such map. The map is sorted lazily: a write only lists the entry's slot, and the next iterator
 * sorts the listed ones into the map. Most entries of a store that ranges now and then (a window's
 * close) are written to the engine before the next range, so they never enter the map; one that
 * ranges per record (a join) sorts each entry in once, as before. (Before the map, an iterator
 * flushed the store and waited for the flusher to write it: an operator that reads a range per
 * record, a join's or a session's, paid a round trip to the flusher's thread per record.) The
 * iterator takes a copy of the cache's part of its range when it opens: later writes are not seen
 * there, as the engine's part may or may not see them.
 *
 * <p>Past 500 lines on purpose: the cache, its flushes and the merged ranges keep one invariant
 * (whatever the cache does not hold, or holds unwritten, is decided here against what the engine
 * holds), and split apart each would need the others' private state. The index of unwritten
 * entries, which needs none of it, is its own class.
 *
 * <p>Loop thread only.
 */
public final class CachedStore<K, V> implements KeyValueStore<K, V> {
  private static final Logger LOG = LoggerFactory.getLogger(CachedStore.class);

  private final String name;
  private final StorageEngine engine;
  /**
   * The staging engine whose entries stay cached until the engine underneath holds them, or null
   * (not staged, or its writes made on this thread, which leaves no sequence number to wait for).
   */
  private final StagedEngine stagedUntilApplied;
  /** What a miss reads: the engine underneath the staging if its entries stay cached, else it. */
  private final StorageEngine reads;
  private final Serde<K> keySerde;
  private final Serde<V> valueSerde;
  private final ChangelogWriter changelog;
  private final StoreFlusher flusher;
  private final int writeBatchSize;
  private final int cacheSize;
  /** Cached and dirty entries, in LRU order. */
  private final CacheMap<K> cache;
  /** The slots of the dirty entries, in first-write order, and how many there are. */
  private int[] dirty = new int[64];
  private int dirtyCount;
  /** The sequence number of the last flush whose engine write was deferred; 0: none. */
  private long deferredThrough;
  private final Set<StoreIterator> open = Collections.newSetFromMap(new IdentityHashMap<>());
  /**
   * Whether each iterator records the stack it was opened from, for the warning if it leaks.
   * Off until the store's first leak: a stack trace per iterator cost more than the short range
   * read a join's lookup is (one per record), and a leak, once found, recurs.
   */
  private boolean traceIterators;
  /**
   * The entries the engine may not hold (dirty, or in a flush the flusher has not written), by
   * serialized key; null until the store is first iterated.
   */
  private UnwrittenIndex unwritten;
  /** The flushes the flusher writes, oldest first: their slots leave {@code unwritten} then. */
  private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
  /** The slot of the last key looked up, for a put of the same key object that follows. */
  private int last = CacheMap.NONE;
  private long flushedEntries;

  /**
   * A store over an engine, flushing on the caller's thread.
   *
   * @param name the store and task, for messages ({@code counts of Partition 3})
   * @param changelog where flushed changes go, or null
   */
  public CachedStore(String name, StoreSpec spec, StorageEngine engine, ChangelogWriter changelog) {
    this(name, spec, engine, changelog, StoreFlusher.inline());
  }

  /**
   * A store over an engine.
   *
   * @param name the store and task, for messages ({@code counts of Partition 3})
   * @param changelog where flushed changes go, or null
   * @param flusher the container's flusher, which applies each flush to the engine and changelog
   */
  @SuppressWarnings("unchecked") // the spec's serdes are declared for this store's types
  public CachedStore(String name, StoreSpec spec, StorageEngine engine, ChangelogWriter changelog,
      StoreFlusher flusher) {
    this.name = name;
    this.engine = engine;
    this.flusher = flusher;
    this.stagedUntilApplied = engine instanceof StagedEngine staged
        && flusher.defersWrites(engine) ? staged : null;
    this.reads = stagedUntilApplied != null ? stagedUntilApplied.engine() : engine;
    this.keySerde = (Serde<K>) spec.keySerde();
    this.valueSerde = (Serde<V>) spec.valueSerde();
    this.changelog = changelog;
    this.writeBatchSize = Math.max(1, spec.writeBatchSize());
    this.cacheSize = Math.max(1, spec.cacheSize());
    this.cache = new CacheMap<>(Math.min(cacheSize, 1 << 16));
  }

  /**
   * Brings the cache back to its size, eldest entries first. A dirty one flushes the store first;
   * one whose flush the engine does not hold yet stops the eviction (younger entries were flushed
   * no earlier) until the flusher has written it.
   */
  private void evictIfFull() {
    if (cache.size() <= cacheSize) {
      return;
    }
    long written = written();
    int entry = cache.eldest();
    while (cache.size() > cacheSize && entry != CacheMap.NONE) {
      if (cache.dirty(entry)) {
        flush(); // its value must reach the engine before it leaves the cache
        written = written();
      }
      if (cache.flushedIn(entry) > written) {
        return; // not in the engine yet: the cache holds it a little longer
      }
      int newer = cache.newerThan(entry);
      if (last == entry) {
        last = CacheMap.NONE;
      }
      forgetWritten(entry); // the engine holds it
      cache.remove(entry);
      entry = newer;
    }
  }

  /**
   * The last flush sequence number whose entries a miss finds in {@link #reads}: what the flusher
   * finished, or, staged, what a commit applied underneath. Throws the flusher's failure.
   */
  private long written() {
    long finished = flusher.finished();
    return stagedUntilApplied == null ? finished
        : Math.min(finished, stagedUntilApplied.appliedThrough());
  }

  @Override
  @SuppressWarnings("unchecked") // entries hold this store's values
  public V get(K key) {
    Objects.requireNonNull(key, "key");
    int hash = CacheMap.hash(key);
    int entry = cache.get(key, hash);
    if (entry == CacheMap.NONE) {
      byte[] bytes = reads.get(serializeKey(key));
      V value = bytes == null ? null : deserializeValue(bytes);
      last = cache.add(key, hash, value);
      evictIfFull(); // the eldest first: never the entry just added
      return value;
    }
    last = entry;
    return (V) cache.value(entry);
  }

  @Override
  public void put(K key, V value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value (use delete to remove a key)");
    write(key, value);
  }

  private void write(K key, Object value) {
    int entry = last != CacheMap.NONE && cache.key(last) == key ? last : CacheMap.NONE;
    if (entry == CacheMap.NONE) {
      int hash = CacheMap.hash(key);
      entry = cache.get(key, hash);
      if (entry == CacheMap.NONE) {
        entry = cache.add(key, hash, value);
        evictIfFull(); // the eldest first: never the entry just added
      } else {
        cache.value(entry, value);
      }
    } else {
      cache.value(entry, value);
    }
    last = entry;
    if (!cache.dirty(entry)) {
      cache.dirty(entry, true);
      if (unwritten != null && !unwritten.has(entry)) {
        unwritten.remember(entry, serializeKey(cache.key(entry))); // the flush reuses the bytes
      }
      if (dirtyCount == dirty.length) {
        dirty = Arrays.copyOf(dirty, dirtyCount * 2);
      }
      dirty[dirtyCount++] = entry;
      if (dirtyCount >= writeBatchSize) {
        flush();
      }
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
    write(key, null);
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
        return Arrays.copyOf(end, i + 1);
      }
    }
    return null; // all 0xFF: every greater key starts with the prefix
  }

  private KeyValueIterator<K, V> iterator(byte[] from, byte[] to) {
    if (unwritten == null) {
      // The first iteration: from an engine that holds everything, the map starts empty.
      flush();
      flusher.await(deferredThrough); // this store's writes (and those handed over with them)
      unwritten = new UnwrittenIndex();
    } else {
      forgetWritten(flusher.finished());
      unwritten.sortRemembered();
    }
    // The cache's part first: what leaves the map from here on is in the engine before its
    // range opens (the flusher finished it before finished() said so).
    SortedMap<byte[], Integer> part = unwritten.between(from, to);
    Object[] overlay = new Object[part.size() * 3];
    int i = 0;
    for (var e : part.entrySet()) {
      int slot = e.getValue();
      overlay[i++] = e.getKey();
      overlay[i++] = cache.key(slot);
      overlay[i++] = cache.value(slot);
    }
    StoreIterator iterator = new StoreIterator(engine.range(from, to), overlay);
    open.add(iterator);
    return iterator;
  }

  /** Forgets a slot's key, if the store keeps them: the engine holds its entry. */
  private void forgetWritten(int slot) {
    if (unwritten != null) {
      unwritten.forget(slot);
    }
  }

  /** Takes out of {@link #unwritten} the entries of the flushes the flusher has written. */
  private void forgetWritten(long finished) {
    while (!deferred.isEmpty() && deferred.peekFirst().sequence <= finished) {
      for (int slot : deferred.pollFirst().slots) {
        // The slot's entry now (it may have been written again, or even evicted and reused).
        if (!cache.dirty(slot) && cache.flushedIn(slot) <= finished) {
          forgetWritten(slot);
        }
      }
    }
  }

  /** A flush the flusher writes to the engine: its sequence number and the slots it held. */
  private record Deferred(long sequence, int[] slots) {}

  /** Writes the dirty entries to the engine in one batch and to the changelog. */
  public void flush() {
    StoreFlusher.Flush flush = serializeDirty();
    if (flush != null) {
      flushed(flusher.flush(engine, changelog, flush.keys(), flush.values()));
    }
  }

  /**
   * The dirty entries serialized, in first-write order, for the flusher to write to the engine
   * and send to the changelog; null if there are none. They stay dirty until {@link #flushed}:
   * a failure before keeps them for the next flush.
   */
  StoreFlusher.Flush serializeDirty() {
    if (dirtyCount == 0) {
      return null;
    }
    // New lists each flush: the flusher's thread may still be reading the last ones.
    List<byte[]> keys = new ArrayList<>(dirtyCount);
    List<byte[]> values = new ArrayList<>(dirtyCount);
    for (int i = 0; i < dirtyCount; i++) {
      int entry = dirty[i];
      Object value = cache.value(entry);
      byte[] key = unwritten != null ? unwritten.keyOf(entry) : null;
      keys.add(key != null ? key : serializeKey(cache.key(entry)));
      values.add(value == null ? null : serializeValue(value));
    }
    return new StoreFlusher.Flush(engine, changelog, keys, values);
  }

  /**
   * The flusher took what {@link #serializeDirty} gave it: the entries are clean.
   *
   * @param deferred the sequence number of the flusher's batch if it writes them to the engine
   *     (the engine holds them once the flusher finished it), else 0
   */
  void flushed(long deferred) {
    if (deferred > 0) {
      deferredThrough = deferred;
    }
    for (int i = 0; i < dirtyCount; i++) {
      // Only once the flusher took the batch: a failure before keeps them dirty (a deferred
      // write's failure fails the next eviction, flush or commit, before any checkpoint).
      cache.dirty(dirty[i], false);
      cache.flushedIn(dirty[i], deferred);
    }
    if (unwritten != null) {
      if (deferred == 0) { // written here: the engine holds them
        for (int i = 0; i < dirtyCount; i++) {
          forgetWritten(dirty[i]);
        }
      } else {
        this.deferred.addLast(new Deferred(deferred, Arrays.copyOf(dirty, dirtyCount)));
        // (Not finished(): a failure is thrown by the next range, flush or commit, not here.)
        forgetWritten(flusher.finishedSoFar());
      }
    }
    flushedEntries += dirtyCount;
    dirtyCount = 0;
  }

  /** Entries written to the engine so far (a flushed key counts once per flush). */
  public long flushedEntries() {
    return flushedEntries;
  }

  /** Dirty entries waiting for a flush. */
  public int dirtyCount() {
    return dirtyCount;
  }

  /**
   * Closes iterators left open, saying where each was opened once the store records it (from its
   * first leak on). Called at each commit.
   */
  public int closeLeakedIterators() {
    int leaked = open.size();
    if (leaked == 0) {
      return 0;
    }
    for (StoreIterator iterator : new ArrayList<>(open)) {
      if (iterator.openedAt != null) {
        LOG.warn("store {}: an iterator was not closed; closing it now. It was opened here:",
            name, iterator.openedAt);
      } else {
        LOG.warn("store {}: an iterator was not closed; closing it now. Where the store's "
            + "iterators are opened is recorded from now on: the next leak says where", name);
      }
      iterator.close();
    }
    traceIterators = true;
    return leaked;
  }

  /** Records where each iterator is opened from now on (see {@link #closeLeakedIterators}). */
  public void traceIterators() {
    traceIterators = true;
  }

  /** Whether the iterators opened now record where (tests). */
  boolean tracesIterators() {
    return traceIterators;
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

  /**
   * An engine iterator merged with the cache's entries the engine may not hold (their values win,
   * their deletes hide the engine's), that deserializes the engine's, and knows where it was
   * opened.
   */
  private final class StoreIterator implements KeyValueIterator<K, V> {
    private final StorageEngine.EngineIterator cursor;
    /** The cache's part: serialized key, key, value (null: deleted), in key order. */
    private final Object[] overlay;
    private int at;
    /** Where it was opened, if the store records it; else null. */
    final Throwable openedAt = traceIterators ? new Throwable("iterator opened here") : null;
    /** Whether the cursor stands on an entry not taken yet; valid once it has moved. */
    private boolean onEngine;
    private boolean moved;
    private K nextKey;
    private V nextValue;
    private boolean ready;
    private boolean closed;

    StoreIterator(StorageEngine.EngineIterator cursor, Object[] overlay) {
      this.cursor = cursor;
      this.overlay = overlay;
    }

    @Override
    public boolean hasNext() {
      if (closed) {
        return false;
      }
      if (!ready) {
        ready = advance();
      }
      return ready;
    }

    /** Finds the next entry of the merge, in nextKey and nextValue; false at the end. */
    @SuppressWarnings("unchecked") // the cache holds this store's keys and values
    private boolean advance() {
      while (true) {
        if (!moved) {
          onEngine = cursor.next();
          moved = true;
        }
        boolean cached = at < overlay.length;
        if (!onEngine && !cached) {
          return false;
        }
        int order = !cached ? -1 : !onEngine ? 1
            : Arrays.compareUnsigned(cursor.key(), (byte[]) overlay[at]);
        if (order < 0) { // the engine's, not in the cache's part
          nextKey = deserializeKey(cursor.key());
          nextValue = deserializeValue(cursor.value());
          moved = false;
          return true;
        }
        if (order == 0) {
          moved = false; // the cache's value wins over the engine's
        }
        Object key = overlay[at + 1];
        Object value = overlay[at + 2];
        at += 3;
        if (value != null) {
          nextKey = (K) key;
          nextValue = (V) value;
          return true;
        } // else a delete the engine may not have seen: skip it
      }
    }

    @Override
    public KeyValue<K, V> next() {
      if (!hasNext()) {
        throw new NoSuchElementException(closed ? "the iterator is closed" : "no more entries");
      }
      ready = false;
      return new KeyValue<>(nextKey, nextValue);
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
