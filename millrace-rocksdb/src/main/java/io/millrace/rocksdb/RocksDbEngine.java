package io.millrace.rocksdb;

import io.millrace.spi.engine.CorruptStoreException;
import io.millrace.spi.engine.StorageEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One task's instance of a RocksDB store. Writes arrive as one {@link WriteBatch} per cache flush,
 * without RocksDB's write-ahead log: at each commit {@link #sync} flushes the memtables to files
 * (when anything was written), so what a commit recorded survives a crash of the machine, and
 * writes after it are covered by the changelog and by processing the input after the checkpoint
 * again (Kafka Streams runs RocksDB the same way). Skipping the log halves the cost of a write
 * batch. Keys are ordered by RocksDB's default bytewise comparator (unsigned bytes), as the store
 * API promises.
 */
final class RocksDbEngine implements StorageEngine {
  /** Bloom filters at 10 bits a key: immutable, so one policy object serves every store. */
  private static final BloomFilter BLOOM = new BloomFilter(10);
  private final String name;
  private final Path dir;
  private final RocksDB db;
  private final Options options;
  private final WriteOptions writeOptions = new WriteOptions().setDisableWAL(true);
  private final FlushOptions flushOptions = new FlushOptions().setWaitForFlush(true);
  private final WriteBatch batch = new WriteBatch();
  /**
   * Whether anything was written since the last sync began. Volatile: a commit's thread may sync
   * while the flusher's writes (one volatile write per batch, not per record).
   */
  private volatile boolean unsynced;

  private RocksDbEngine(String name, Path dir, RocksDB db, Options options) {
    this.name = name;
    this.dir = dir;
    this.db = db;
    this.options = options;
  }

  /** Opens or creates the instance in {@code dir}; damaged files raise CorruptStoreException. */
  static RocksDbEngine open(String name, Path dir, RocksDbEngineFactory.UserOptions user,
      RocksDbMemory memory, int instances) {
    Options options = options(user, memory, instances);
    try {
      Files.createDirectories(dir);
      return new RocksDbEngine(name, dir, RocksDB.open(options, dir.toString()), options);
    } catch (RocksDBException e) {
      options.close();
      Status status = e.getStatus();
      if (status != null && (status.getCode() == Status.Code.Corruption
          || (status.getCode() == Status.Code.InvalidArgument && !isFresh(dir)))) {
        throw new CorruptStoreException("RocksDB cannot open " + dir + ": " + e.getMessage(), e);
      }
      throw new IllegalStateException("store " + name + ": RocksDB cannot open " + dir + ": "
          + e.getMessage(), e);
    } catch (IOException e) {
      options.close();
      throw new IllegalStateException("store " + name + ": cannot create " + dir + ": " + e, e);
    }
  }

  private static boolean isFresh(Path dir) {
    return !Files.exists(dir.resolve("CURRENT"));
  }

  /** Millrace's defaults, the user's options over them, then the shared memory budget. */
  private static Options options(RocksDbEngineFactory.UserOptions user, RocksDbMemory memory,
      int instances) {
    DBOptions db = user.db().isEmpty() ? new DBOptions() : DBOptions.getDBOptionsFromProps(user.db());
    ColumnFamilyOptions cf = user.cf().isEmpty() ? new ColumnFamilyOptions()
        : ColumnFamilyOptions.getColumnFamilyOptionsFromProps(user.cf());
    if (!user.db().containsKey("max_background_jobs")) {
      db.setMaxBackgroundJobs(2);
    }
    if (!user.cf().containsKey("compression")) {
      cf.setCompressionType(CompressionType.LZ4_COMPRESSION);
    }
    if (!user.cf().containsKey("write_buffer_size")) {
      cf.setWriteBufferSize(16L << 20);
    }
    if (!user.cf().containsKey("arena_block_size")) {
      // A memtable holds at least one arena block (by default write_buffer_size / 8): small blocks
      // keep 100 tasks' memtables within the shared budget the write-buffer manager enforces.
      cf.setArenaBlockSize(64 << 10);
    }
    if (!user.cf().containsKey("memtable_prefix_bloom_size_ratio")) {
      double ratio = memtableBloomRatio(cf.writeBufferSize(), memory.writeBufferBytes, instances);
      if (ratio > 0) {
        // A read of a key the memtable lacks (every new key) skips the memtable's skip list.
        cf.setMemtablePrefixBloomSizeRatio(ratio);
        cf.setMemtableWholeKeyFiltering(true);
      }
    }
    Options options = new Options(db, cf);
    db.close();
    cf.close();
    options.setCreateIfMissing(true);
    options.setWriteBufferManager(memory.writeBuffers);
    BlockBasedTableConfig table = new BlockBasedTableConfig();
    table.setBlockCache(memory.cache);
    table.setCacheIndexAndFilterBlocks(true); // counted against the shared budget too
    table.setPinL0FilterAndIndexBlocksInCache(true);
    table.setFilterPolicy(BLOOM); // a miss (a new key) rarely touches a data block
    table.setBlockSize(16 * 1024);
    options.setTableFormatConfig(table);
    return options;
  }

  /**
   * The memtable bloom filter's size as a fraction of a memtable, or 0 for none. A memtable
   * allocates its whole filter when it is created, before the write-buffer manager can flush
   * anything, so the filter gets at most an eighth of an instance's share of the memtable budget
   * (two memtables an instance), and none when that leaves under 64 KB: with 100 tasks in a small
   * budget the filters alone would overrun it. 2% of a memtable is about 10 bits for each of its
   * entries at ~60 bytes an entry. Measured: +15% on counts of unique keys (docs/benchmarks.md).
   */
  static double memtableBloomRatio(long writeBufferSize, long memtableBudget, int instances) {
    long bloom = Math.min(writeBufferSize / 50, memtableBudget / instances / 16);
    return bloom < (64 << 10) ? 0 : (double) bloom / writeBufferSize;
  }

  /** RocksDB takes a write on one thread while others read. */
  @Override
  public boolean concurrentWrites() {
    return true;
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw new IllegalStateException("store " + name + ": RocksDB get failed in " + dir + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public void write(List<byte[]> keys, List<byte[]> values) {
    try {
      batch.clear(); // one native batch, reused: no allocation per flush on the Java side
      for (int i = 0; i < keys.size(); i++) {
        byte[] value = values.get(i);
        if (value == null) {
          batch.delete(keys.get(i));
        } else {
          batch.put(keys.get(i), value);
        }
      }
      db.write(writeOptions, batch);
      unsynced = true;
    } catch (RocksDBException e) {
      throw new IllegalStateException("store " + name + ": RocksDB write failed in " + dir + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public EngineIterator range(byte[] from, byte[] to) {
    ReadOptions read = new ReadOptions();
    Slice upper = to == null ? null : new Slice(to);
    if (upper != null) {
      read.setIterateUpperBound(upper);
    }
    RocksIterator it = db.newIterator(read);
    return new EngineIterator() {
      private boolean started;
      private boolean closed;

      @Override
      public boolean next() {
        if (!started) {
          started = true;
          if (from == null) {
            it.seekToFirst();
          } else {
            it.seek(from);
          }
        } else {
          it.next();
        }
        return it.isValid();
      }

      @Override
      public byte[] key() {
        return it.key();
      }

      @Override
      public byte[] value() {
        return it.value();
      }

      @Override
      public void close() {
        if (!closed) {
          closed = true;
          it.close();
          read.close();
          if (upper != null) {
            upper.close();
          }
        }
      }
    };
  }

  @Override
  public void sync() {
    if (!unsynced) {
      return; // nothing new: no empty flush, no tiny files at short commit intervals
    }
    // Cleared before the flush: a write that lands during it sets it again for the next sync.
    unsynced = false;
    try {
      db.flush(flushOptions);
    } catch (RocksDBException e) {
      unsynced = true;
      throw new IllegalStateException("store " + name + ": cannot flush RocksDB's memtables in "
          + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean persistent() {
    return true;
  }

  @Override
  public void close() {
    batch.close();
    writeOptions.close();
    flushOptions.close();
    db.close();
    options.close();
  }
}
