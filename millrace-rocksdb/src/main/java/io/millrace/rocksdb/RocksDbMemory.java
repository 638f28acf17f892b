package io.millrace.rocksdb;

import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.WriteBufferManager;

/**
 * The memory every RocksDB store of a container shares ({@code stores.rocksdb.memory.bytes}): one
 * LRU block cache, which also holds index and filter blocks, and a write-buffer manager that
 * charges every memtable to the same cache. So a container's RocksDB memory stays near that
 * budget whether it runs 1 task or 100 (Kafka Streams' "bounded memory" recipe), instead of a
 * cache and memtables per store.
 */
final class RocksDbMemory implements AutoCloseable {
  /** 256 MB per container. */
  static final long DEFAULT_BYTES = 256L << 20;
  final Cache cache;
  final WriteBufferManager writeBuffers;
  /** The memtables' share of the budget, which the write-buffer manager enforces. */
  final long writeBufferBytes;

  RocksDbMemory(long bytes) {
    // Strict capacity off: a full cache evicts rather than failing reads; memtables get a third.
    this.cache = new LRUCache(bytes, -1, false, 0.1);
    this.writeBufferBytes = bytes / 3;
    this.writeBuffers = new WriteBufferManager(writeBufferBytes, cache);
  }

  /** Bytes the cache holds now (blocks and memtables charged to it). */
  long usage() {
    return cache.getUsage();
  }

  @Override
  public void close() {
    writeBuffers.close();
    cache.close();
  }
}
