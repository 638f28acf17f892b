package io.millrace.core.store;

import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An engine whose writes wait, in memory, for the commit that makes them true: under {@code
 * task.processing.guarantee=exactly-once} a persistent store's local files must never hold a
 * write of a transaction that did not commit, so that a crash restarts from the files plus the
 * changelog's tail instead of a full restore (Kafka Streams 4.3 wipes the files instead).
 *
 * <p>{@link #write} stages; {@link #get} and {@link #range} read the staged writes over the
 * engine's, so the task reads its own writes. A commit {@linkplain #seal seals} what is staged
 * (then exactly its transaction's writes) before the transaction commits, and new writes stage
 * afresh; once it committed, {@link #applySealed} writes the sealed ones to the engine as one
 * batch, on the commit's thread while the tasks go on (reads look at the staged writes, then the
 * sealed ones, then the engine's). A crash, an abort or a {@link #close} before that drops them:
 * the files keep what the last commit left.
 *
 * <p>The staged writes are kept as the batches came (a list append per batch), and indexed by key
 * in a skip list only once something reads them: the container's flushing thread may stage while
 * the loop thread reads ({@link #concurrentWrites}). A {@link CachedStore} whose flushes the
 * flusher's thread writes never needs to: it keeps every entry the engine underneath does not hold
 * yet in its cache ({@link #appliedThrough}) and reads the engine underneath on a miss, so for a
 * store that only gets, the staging costs no lookup on the loop and no skip-list put per entry on
 * the flusher (a third of its samples in a count over 1M keys: docs/benchmarks.md). A store that
 * ranges indexes from its first range on, on the flusher's thread as before. They hold one commit
 * interval's flushed entries, which is why exactly-once commits often (docs/configuration.md).
 */
public final class StagedEngine implements StorageEngine {
  /** Marks a staged delete in an index (compared by identity: a real value is never this array). */
  private static final byte[] DELETED = new byte[0];
  private final StorageEngine engine;
  /** Whether the layers index their writes: from the first read of the staged writes on. */
  private volatile boolean indexing;
  /** Written by the flusher's thread; replaced by {@link #seal}, the flusher idle or parked. */
  private volatile Layer staged = new Layer(false);
  /**
   * The writes of a transaction that is committing or committed, until they are applied: set by
   * the committing thread, read on the loop, and put back to none by the thread that applies
   * them, after the engine holds them (a reader that still sees them reads what the engine now
   * holds as well).
   */
  private volatile Layer sealed = Layer.NONE;
  /** The flush sequence number the sealed writes reach (see {@link #seal(long)}). */
  private volatile long sealedThrough;
  /** The flush sequence number through which the engine underneath holds every write. */
  private volatile long appliedThrough;

  /**
   * One commit interval's writes: the batches in the order they came, and an index by key, null
   * until something reads them. Appends and the index's build are under its lock; the index, once
   * there, is read without it (a skip list) and filled by the writer.
   */
  private static final class Layer {
    static final Layer NONE = new Layer(false);
    private final List<Batch> batches = new ArrayList<>();
    private int entries;
    private volatile ConcurrentSkipListMap<byte[], byte[]> index;

    Layer(boolean indexed) {
      index = indexed ? newIndex() : null;
    }

    synchronized void add(List<byte[]> keys, List<byte[]> values) {
      Batch batch = new Batch(keys, values);
      batches.add(batch);
      entries += keys.size();
      ConcurrentSkipListMap<byte[], byte[]> i = index;
      if (i != null) {
        put(i, batch);
      }
    }

    /** The index, built from the batches first if it was not there. */
    NavigableMap<byte[], byte[]> index() {
      ConcurrentSkipListMap<byte[], byte[]> i = index;
      if (i != null) {
        return i;
      }
      synchronized (this) {
        if (index == null) {
          ConcurrentSkipListMap<byte[], byte[]> built = newIndex();
          batches.forEach(batch -> put(built, batch));
          index = built;
        }
        return index;
      }
    }

    synchronized int entries() {
      return entries;
    }

    synchronized boolean isEmpty() {
      return entries == 0;
    }

    synchronized int batches() {
      return batches.size();
    }

    /** The first {@code count} batches as one (a later write of a key after an earlier one). */
    synchronized Batch first(int count) {
      List<Batch> taken = batches.subList(0, count);
      int n = taken.stream().mapToInt(batch -> batch.keys().size()).sum();
      List<byte[]> keys = new ArrayList<>(n);
      List<byte[]> values = new ArrayList<>(n);
      for (Batch batch : taken) {
        keys.addAll(batch.keys());
        values.addAll(batch.values());
      }
      return new Batch(keys, values);
    }

    /**
     * Drops the first {@code count} batches, which {@code applied} holds, once the engine holds
     * them; an index keeps only what came since (a write that came meanwhile stays staged).
     */
    synchronized void dropApplied(int count, Batch applied) {
      batches.subList(0, count).clear();
      entries -= applied.keys().size();
      ConcurrentSkipListMap<byte[], byte[]> i = index;
      if (i != null) {
        for (int e = 0; e < applied.keys().size(); e++) {
          byte[] value = applied.values().get(e);
          i.remove(applied.keys().get(e), value == null ? DELETED : value);
        }
      }
    }

    private static ConcurrentSkipListMap<byte[], byte[]> newIndex() {
      return new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    }

    private static void put(ConcurrentSkipListMap<byte[], byte[]> index, Batch batch) {
      for (int e = 0; e < batch.keys().size(); e++) {
        byte[] value = batch.values().get(e);
        index.put(batch.keys().get(e), value == null ? DELETED : value);
      }
    }
  }

  /** Stages the writes to {@code engine} (a persistent one: a memory engine needs no staging). */
  public StagedEngine(StorageEngine engine) {
    this.engine = engine;
  }

  /** The engine underneath, which holds only committed writes (a restore writes it directly). */
  public StorageEngine engine() {
    return engine;
  }

  /** Writes staged and not sealed yet (a key written twice counts twice). */
  public int stagedCount() {
    return staged.entries();
  }

  /** Writes sealed and not applied yet (a key written twice counts twice). */
  public int sealedCount() {
    return sealed.entries();
  }

  /**
   * The flush sequence number (the container's {@link StoreFlusher}'s) through which the engine
   * underneath holds every write staged here: a store may forget an entry it flushed in a batch
   * numbered up to this, and read its key from {@link #engine()}. 0 until a commit that was told
   * its number ({@link #seal(long)}) applied.
   */
  public long appliedThrough() {
    return appliedThrough;
  }

  @Override
  public byte[] get(byte[] key) {
    byte[] value = index(staged).get(key);
    if (value == null) {
      Layer sealedNow = sealed;
      value = sealedNow == Layer.NONE ? null : index(sealedNow).get(key);
      if (value == null) {
        return engine.get(key);
      }
    }
    return value == DELETED ? null : value;
  }

  /** A layer's index; from now on every layer indexes its writes as they come. */
  private NavigableMap<byte[], byte[]> index(Layer layer) {
    if (!indexing) {
      indexing = true; // before the build: a layer sealed meanwhile then indexes from its start
    }
    return layer.index();
  }

  @Override
  public void write(List<byte[]> keys, List<byte[]> values) {
    staged.add(keys, values);
  }

  @Override
  public EngineIterator range(byte[] from, byte[] to) {
    // Read in the order writes move (staged, then sealed, then the engine), as get does: a seal
    // or an apply on the commit thread between two reads then shows a write twice (the newer
    // layer wins), never not at all.
    Layer stagedNow = staged;
    Layer sealedNow = sealed;
    NavigableMap<byte[], byte[]> stagedIndex = index(stagedNow);
    EngineIterator underneath = engine.range(from, to);
    if (sealedNow != Layer.NONE && !sealedNow.isEmpty()) {
      underneath = new MergedIterator(view(index(sealedNow), from, to), underneath);
    }
    return new MergedIterator(view(stagedIndex, from, to), underneath);
  }

  private static Iterator<Map.Entry<byte[], byte[]>> view(NavigableMap<byte[], byte[]> map,
      byte[] from, byte[] to) {
    NavigableMap<byte[], byte[]> view = from == null && to == null ? map
        : from == null ? map.headMap(to, false)
        : to == null ? map.tailMap(from, true)
        : map.subMap(from, true, to, false);
    return view.entrySet().iterator();
  }

  /**
   * Seals what is staged: the commit calls this once its transaction holds exactly these writes
   * (every one handed to the flusher has been staged, and nothing is being staged), before the
   * transaction commits. The committing thread (the loop's, or the commit's while the flusher is
   * parked), beside reads on the loop: {@code sealed} is set before {@code staged}, which
   * readers read first, so a reader between the two finds a write in one or the other.
   *
   * @throws IllegalStateException if the writes sealed before were not applied yet
   */
  public void seal() {
    seal(appliedThrough);
  }

  /**
   * As {@link #seal()}, knowing that the writes staged reach the flusher's batch {@code
   * flushedThrough} (every batch up to it was staged, none after): once they are applied, {@link
   * #appliedThrough} says so.
   */
  public void seal(long flushedThrough) {
    if (sealed != Layer.NONE) {
      throw new IllegalStateException("the writes of the previous commit were not applied yet");
    }
    if (!staged.isEmpty()) {
      sealed = staged;
      staged = new Layer(indexing);
    }
    sealedThrough = Math.max(flushedThrough, appliedThrough);
  }

  /**
   * The engine contract's sync: every write that returned before it is in the engine, synced
   * (sealed and staged ones alike, a write staged meanwhile kept for later). The commit protocol
   * never calls it while a transaction is open: it seals, applies the sealed writes once the
   * transaction committed, and syncs the engine underneath ({@code EngineSync.syncCommitted}).
   */
  @Override
  public void sync() {
    applySealed();
    Layer writes = staged;
    int batches = writes.batches();
    if (batches > 0) {
      Batch applied = writes.first(batches);
      engine.write(applied.keys(), applied.values());
      writes.dropApplied(batches, applied);
    }
    engine.sync();
  }

  /**
   * Applies the sealed writes to the engine as one batch, in the order they were written, without
   * syncing it: the commit calls this after its transaction committed, never before (on its own
   * thread, while the loop reads and the flusher stages). The engine then holds committed writes
   * only, synced or not, so a crash leaves its files at some committed state, which a replay of
   * the changelog from their last mark brings up to date.
   */
  public void applySealed() {
    Layer writes = sealed;
    if (writes != Layer.NONE) {
      Batch all = writes.first(writes.batches()); // (sealed: no batch comes any more)
      if (!all.keys().isEmpty()) {
        engine.write(all.keys(), all.values());
      }
      sealed = Layer.NONE; // after the engine holds them: dropped whole, no remove per key
    }
    appliedThrough = sealedThrough; // (after the engine holds them: a store may forget them)
  }

  /** Keys and values written to the engine in one batch (a null value deletes). */
  private record Batch(List<byte[]> keys, List<byte[]> values) {}

  @Override
  public boolean persistent() {
    return engine.persistent();
  }

  @Override
  public boolean concurrentWrites() {
    return true;
  }

  /** Drops what is staged or sealed and not applied (never committed) and closes the engine. */
  @Override
  public void close() {
    staged = new Layer(false);
    sealed = Layer.NONE;
    engine.close();
  }

  /** The staged entries over the engine's, in key order: a staged entry hides the engine's. */
  private static final class MergedIterator implements EngineIterator {
    private final Iterator<Map.Entry<byte[], byte[]>> stagedEntries;
    private final EngineIterator engineEntries;
    private Map.Entry<byte[], byte[]> nextStaged;
    private boolean engineHasNext;
    private boolean started;
    private byte[] key;
    private byte[] value;

    MergedIterator(Iterator<Map.Entry<byte[], byte[]>> staged, EngineIterator engine) {
      this.stagedEntries = staged;
      this.engineEntries = engine;
    }

    @Override
    public boolean next() {
      if (!started) {
        started = true;
        nextStaged = stagedEntries.hasNext() ? stagedEntries.next() : null;
        engineHasNext = engineEntries.next();
      }
      while (nextStaged != null || engineHasNext) {
        int order = nextStaged == null ? 1 : !engineHasNext ? -1
            : Arrays.compareUnsigned(nextStaged.getKey(), engineEntries.key());
        if (order > 0) {
          key = engineEntries.key();
          value = engineEntries.value();
          engineHasNext = engineEntries.next();
          return true;
        }
        Map.Entry<byte[], byte[]> staged = nextStaged;
        nextStaged = stagedEntries.hasNext() ? stagedEntries.next() : null;
        if (order == 0) {
          engineHasNext = engineEntries.next(); // the staged write replaces the engine's entry
        }
        if (staged.getValue() != DELETED) {
          key = staged.getKey();
          value = staged.getValue();
          return true;
        }
      }
      key = null;
      value = null;
      return false;
    }

    @Override
    public byte[] key() {
      return key;
    }

    @Override
    public byte[] value() {
      return value;
    }

    @Override
    public void close() {
      engineEntries.close();
    }
  }
}
