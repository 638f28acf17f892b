/**
 * The storage-engine SPI: the bytes underneath a task's key-value store ({@link
 * io.millrace.spi.engine.StorageEngine}), found by name through {@link
 * io.millrace.spi.engine.StorageEngineFactory} and {@code java.util.ServiceLoader}. Memory is
 * built in; RocksDB is millrace-rocksdb.
 */
package io.millrace.spi.engine;
