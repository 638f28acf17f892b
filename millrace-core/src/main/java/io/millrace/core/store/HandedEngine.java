package io.millrace.core.store;

import io.millrace.spi.engine.StorageEngine;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A standby copy's engine handed open to a container ({@link StandbyReplicas#activate}): the
 * engine as it is, counted open in {@code handedOpen} until its first close, because it uses the
 * copies' memory (block cache, write-buffer manager), which may be freed only once none is open.
 */
final class HandedEngine implements StorageEngine {
  private final StorageEngine engine;
  private final AtomicInteger handedOpen;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** Counts itself open in {@code handedOpen} (the caller has incremented it already). */
  HandedEngine(StorageEngine engine, AtomicInteger handedOpen) {
    this.engine = engine;
    this.handedOpen = handedOpen;
  }

  @Override
  public byte[] get(byte[] key) {
    return engine.get(key);
  }

  @Override
  public void write(List<byte[]> keys, List<byte[]> values) {
    engine.write(keys, values);
  }

  @Override
  public EngineIterator range(byte[] from, byte[] to) {
    return engine.range(from, to);
  }

  @Override
  public void sync() {
    engine.sync();
  }

  @Override
  public boolean persistent() {
    return engine.persistent();
  }

  @Override
  public boolean concurrentWrites() {
    return engine.concurrentWrites();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        engine.close();
      } finally {
        handedOpen.decrementAndGet();
      }
    }
  }
}
