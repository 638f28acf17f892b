package io.millrace.core.store;
import io.millrace.spi.engine.EngineResources;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.engine.StorageEngineFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The {@code memory} engine: a sorted map of byte arrays in unsigned order, for small state and
 * tests. Nothing survives the process: with a changelog, a restart restores it in full. Its
 * iterators are weakly consistent (a skip list's): writes made while iterating may or may not be
 * seen, and never break the iteration.
 */
public final class MemoryEngine implements StorageEngine {
  private final ConcurrentSkipListMap<byte[], byte[]> map =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

  /** The factory of {@code stores.<name>.factory=memory}. */
  public static final class Factory implements StorageEngineFactory {
    @Override
    public String shortName() {
      return "memory";
    }

    @Override
    public Set<String> storeKeys() {
      return Set.of();
    }

    @Override
    public StorageEngine open(EngineSpec spec, Path dir, EngineResources resources) {
      return new MemoryEngine();
    }
  }

  @Override
  public byte[] get(byte[] key) {
    return map.get(key);
  }

  @Override
  public void write(List<byte[]> keys, List<byte[]> values) {
    for (int i = 0; i < keys.size(); i++) {
      byte[] value = values.get(i);
      if (value == null) {
        map.remove(keys.get(i));
      } else {
        map.put(keys.get(i), value);
      }
    }
  }

  @Override
  public EngineIterator range(byte[] from, byte[] to) {
    NavigableMap<byte[], byte[]> view = from == null && to == null ? map
        : from == null ? map.headMap(to, false)
        : to == null ? map.tailMap(from, true)
        : map.subMap(from, true, to, false);
    Iterator<Map.Entry<byte[], byte[]>> entries = view.entrySet().iterator();
    return new EngineIterator() {
      private Map.Entry<byte[], byte[]> current;

      @Override
      public boolean next() {
        current = entries.hasNext() ? entries.next() : null;
        return current != null;
      }

      @Override
      public byte[] key() {
        return current.getKey();
      }

      @Override
      public byte[] value() {
        return current.getValue();
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void sync() {}

  @Override
  public boolean persistent() {
    return false;
  }

  @Override
  public void close() {
    map.clear();
  }
}
