package io.millrace.core.store;
import io.millrace.spi.engine.StorageEngine;
import java.util.List;

/**
 * A memory engine for tests to watch, slow down or break: it passes everything to a {@link
 * MemoryEngine}, and a test overrides what it watches.
 */
class WatchedEngine implements StorageEngine {
  final MemoryEngine memory = new MemoryEngine();

  @Override
  public byte[] get(byte[] key) {
    return memory.get(key);
  }

  @Override
  public void write(List<byte[]> keys, List<byte[]> values) {
    memory.write(keys, values);
  }

  @Override
  public EngineIterator range(byte[] from, byte[] to) {
    return memory.range(from, to);
  }

  @Override
  public void sync() {}

  @Override
  public boolean persistent() {
    return false;
  }

  @Override
  public void close() {}
}
