package io.millrace.core.store;

import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
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
 * <p>The staged writes are a skip list, so the container's flushing thread may stage while the
 * loop thread reads ({@link #concurrentWrites}); they hold one commit interval's flushed entries,
 * which is why exactly-once commits often (docs/configuration.md).
 */
public final class StagedEngine implements StorageEngine {
  /** Marks a staged delete (compared by identity: a real value is never this array). */
  private static final byte[] DELETED = new byte[0];
  private final StorageEngine engine;
  private static final NavigableMap<byte[], byte[]> NONE_SEALED =
      Collections.unmodifiableNavigableMap(new TreeMap<>(Arrays::compareUnsigned));
  /** Written by the flusher's thread; replaced by {@link #seal}, the flusher idle or parked. */
  private volatile ConcurrentSkipListMap<byte[], byte[]> staged = newStaged();
  /**
   * The writes of a transaction that is committing or committed, until they are applied: set by
   * the committing thread, read on the loop, and put back to none by the thread that applies
   * them, after the engine holds them (a reader that still sees them reads what the engine now
   * holds as well).
   */
  private volatile NavigableMap<byte[], byte[]> sealed = NONE_SEALED;

  /** Stages the writes to {@code engine} (a persistent one: a memory engine needs no staging). */
  public StagedEngine(StorageEngine engine) {
    this.engine = engine;
  }

  /** The engine underneath, which holds only committed writes (a restore writes it directly). */
  public StorageEngine engine() {
    return engine;
  }

  private static ConcurrentSkipListMap<byte[], byte[]> newStaged() {
    return new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
  }

  /** Writes staged and not sealed yet. */
  public int stagedCount() {
    return staged.size();
  }

  /** Writes sealed and not applied yet. */
  public int sealedCount() {
    return sealed.size();
  }

  @Override
  public byte[] get(byte[] key) {
    byte[] value = staged.get(key);
    if (value == null) {
      value = sealed.get(key);
      if (value == null) {
        return engine.get(key);
      }
    }
    return value == DELETED ? null : value;
  }

  @Override
  public void write(List<byte[]> keys, List<byte[]> values) {
    for (int i = 0; i < keys.size(); i++) {
      byte[] value = values.get(i);
      staged.put(keys.get(i), value == null ? DELETED : value);
    }
  }

  @Override
  public EngineIterator range(byte[] from, byte[] to) {
    // Read in the order writes move (staged, then sealed, then the engine), as get does: a seal
    // or an apply on the commit thread between two reads then shows a write twice (the newer
    // layer wins), never not at all.
    NavigableMap<byte[], byte[]> stagedNow = staged;
    NavigableMap<byte[], byte[]> sealedNow = sealed;
    EngineIterator underneath = engine.range(from, to);
    if (!sealedNow.isEmpty()) {
      underneath = new MergedIterator(view(sealedNow, from, to), underneath);
    }
    return new MergedIterator(view(stagedNow, from, to), underneath);
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
    if (!sealed.isEmpty()) {
      throw new IllegalStateException("the writes of the previous commit were not applied yet");
    }
    if (!staged.isEmpty()) {
      sealed = staged;
      staged = newStaged();
    }
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
    ConcurrentSkipListMap<byte[], byte[]> writes = staged;
    if (!writes.isEmpty()) {
      Batch applied = write(writes);
      for (int i = 0; i < applied.keys().size(); i++) {
        // Only the value applied: a write that came meanwhile stays staged for the next apply.
        byte[] value = applied.values().get(i);
        writes.remove(applied.keys().get(i), value == null ? DELETED : value);
      }
    }
    engine.sync();
  }

  /**
   * Applies the sealed writes to the engine as one batch, without syncing it: the commit calls
   * this after its transaction committed, never before (on its own thread, while the loop reads
   * and the flusher stages). The engine then holds committed writes only, synced or not, so a
   * crash leaves its files at some committed state, which a replay of the changelog from their
   * last mark brings up to date.
   */
  public void applySealed() {
    NavigableMap<byte[], byte[]> writes = sealed;
    if (!writes.isEmpty()) {
      write(writes);
      sealed = NONE_SEALED; // after the engine holds them: dropped whole, no remove per key
    }
  }

  /** Keys and values written to the engine in one batch (a null value deletes). */
  private record Batch(List<byte[]> keys, List<byte[]> values) {}

  /** Writes {@code writes} to the engine as one batch, its deletes as null values. */
  private Batch write(NavigableMap<byte[], byte[]> writes) {
    List<byte[]> keys = new ArrayList<>(writes.size());
    List<byte[]> values = new ArrayList<>(writes.size());
    for (Map.Entry<byte[], byte[]> e : writes.entrySet()) {
      keys.add(e.getKey());
      values.add(e.getValue() == DELETED ? null : e.getValue());
    }
    engine.write(keys, values);
    return new Batch(keys, values);
  }

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
    staged = newStaged();
    sealed = NONE_SEALED;
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
