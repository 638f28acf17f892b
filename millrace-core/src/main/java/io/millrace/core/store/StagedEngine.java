package io.millrace.core.store;

import io.millrace.api.store.engine.StorageEngine;
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
 * engine's, so the task reads its own writes; {@link #apply}, which the commit calls only once the
 * transaction committed, writes them to the engine as one batch ({@link #sync} also syncs it). A
 * crash, an abort or a {@link #close} before that drops them: the files keep what the last commit
 * left.
 *
 * <p>The staged writes are a skip list, so the container's flushing thread may stage while the
 * loop thread reads ({@link #concurrentWrites}); they hold one commit interval's flushed entries,
 * which is why exactly-once commits often (docs/configuration.md).
 */
public final class StagedEngine implements StorageEngine {
  /** Marks a staged delete (compared by identity: a real value is never this array). */
  private static final byte[] DELETED = new byte[0];
  private final StorageEngine engine;
  private final ConcurrentSkipListMap<byte[], byte[]> staged =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

  /** Stages the writes to {@code engine} (a persistent one: a memory engine needs no staging). */
  public StagedEngine(StorageEngine engine) {
    this.engine = engine;
  }

  /** The engine underneath, which holds only committed writes (a restore writes it directly). */
  public StorageEngine engine() {
    return engine;
  }

  /** Writes staged and not applied yet. */
  public int stagedCount() {
    return staged.size();
  }

  @Override
  public byte[] get(byte[] key) {
    byte[] value = staged.get(key);
    if (value == null) {
      return engine.get(key);
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
    NavigableMap<byte[], byte[]> view = from == null && to == null ? staged
        : from == null ? staged.headMap(to, false)
        : to == null ? staged.tailMap(from, true)
        : staged.subMap(from, true, to, false);
    return new MergedIterator(view.entrySet().iterator(), engine.range(from, to));
  }

  /**
   * Applies the staged writes to the engine as one batch, then syncs it: the commit calls this
   * after its transaction committed, never before.
   */
  @Override
  public void sync() {
    apply();
    engine.sync();
  }

  /**
   * Applies the staged writes to the engine as one batch, without syncing it: the commit calls
   * this after its transaction committed, never before. The engine then holds committed writes
   * only, synced or not, so a crash leaves its files at some committed state, which a replay of
   * the changelog from their last mark brings up to date.
   */
  public void apply() {
    if (!staged.isEmpty()) {
      List<byte[]> keys = new ArrayList<>(staged.size());
      List<byte[]> values = new ArrayList<>(staged.size());
      for (Map.Entry<byte[], byte[]> e : staged.entrySet()) {
        keys.add(e.getKey());
        values.add(e.getValue() == DELETED ? null : e.getValue());
      }
      engine.write(keys, values);
      for (int i = 0; i < keys.size(); i++) {
        // Only the value applied: a write that came meanwhile stays staged for the next apply.
        staged.remove(keys.get(i), values.get(i) == null ? DELETED : values.get(i));
      }
    }
  }

  @Override
  public boolean persistent() {
    return engine.persistent();
  }

  @Override
  public boolean concurrentWrites() {
    return true;
  }

  /** Drops what is staged (it was never committed) and closes the engine. */
  @Override
  public void close() {
    staged.clear();
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
