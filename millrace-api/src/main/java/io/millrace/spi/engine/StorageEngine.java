package io.millrace.spi.engine;

import java.util.List;

/**
 * The bytes underneath a store: RocksDB, or a sorted map in memory. Keys are ordered as unsigned
 * bytes. Used by one task's store on its loop thread (and by the restore before it starts); an
 * engine that says so ({@link #concurrentWrites}) has its write batches applied on the container's
 * flushing thread while the loop thread reads.
 */
public interface StorageEngine extends AutoCloseable {
  /** The value of {@code key}, or null. */
  byte[] get(byte[] key);

  /**
   * Applies puts and deletes as one batch, in order.
   *
   * @param keys the keys
   * @param values the values, {@code null} for a delete
   */
  void write(List<byte[]> keys, List<byte[]> values);

  /**
   * The entries with {@code from <= key < to}, in key order; either bound may be null (open). The
   * iterator sees the engine as it was when it was created, or later writes too (memory): a task
   * should not rely on either.
   */
  EngineIterator range(byte[] from, byte[] to);

  /** Makes every write so far survive a crash of the process and of the machine. */
  void sync();

  /** Whether the data lives in local files that a restart can open again. */
  boolean persistent();

  /**
   * Whether {@link #write} may run on another thread than, and at the same time as, {@link #get}
   * and {@link #range} (never two writes at once), and {@link #sync} on a third (a commit's),
   * at the same time as writes: the sync then makes durable at least every write that returned
   * before it began. False unless the engine says so.
   */
  default boolean concurrentWrites() {
    return false;
  }

  @Override
  void close();

  /** A cursor over entries: {@code next()} moves to the next one and says whether there is one. */
  interface EngineIterator extends AutoCloseable {
    /** Moves to the next entry; false at the end. */
    boolean next();

    /** The current entry's key. */
    byte[] key();

    /** The current entry's value. */
    byte[] value();

    @Override
    void close();
  }
}
