package io.millrace.core.store;

import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.spi.engine.CorruptStoreException;
import io.millrace.spi.engine.EngineResources;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.engine.StorageEngineFactory;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Small real parts for the store registry's and commit participant's tests. */
final class StoreFixtures {
  private StoreFixtures() {}

  /** A store of string keys and long values with a changelog on a system named "log". */
  static StoreSpec logged(String name, StorageEngineFactory engines) {
    return new StoreSpec(name, engines, new StringSerde(), new LongSerde(), "log",
        name + "-changelog", 100, 100, Map.of());
  }

  /** The same without a changelog. */
  static StoreSpec unlogged(String name, StorageEngineFactory engines) {
    return new StoreSpec(name, engines, new StringSerde(), new LongSerde(), null, null, 100, 100,
        Map.of());
  }

  /** A registry whose changelogs all go to {@code producer} (one stream index per store). */
  static StoreRegistry registry(List<StoreSpec> specs, Path dir, SystemProducer producer,
      boolean exactlyOnce) {
    return StoreRegistry.create(specs, dir, Map.of(), 1,
        (spec, task) -> new ChangelogWriter(producer, specs.indexOf(spec), task),
        system -> {
          throw new AssertionError("no restore in this test");
        }, StoreFlusher.inline(), exactlyOnce);
  }

  /**
   * A producer that acknowledges each send at once: a partition's last offset is the number of
   * records sent to it, less one.
   */
  static final class CountingProducer implements SystemProducer {
    private final Map<Long, AtomicLong> sent = new ConcurrentHashMap<>();

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      sent.computeIfAbsent(slot(index, partition), s -> new AtomicLong()).incrementAndGet();
    }

    @Override
    public void flush() {}

    @Override
    public long lastOffset(int index, int partition) {
      AtomicLong count = sent.get(slot(index, partition));
      return count == null ? -1 : count.get() - 1;
    }

    @Override
    public void stop() {}

    private static long slot(int index, int partition) {
      return ((long) index << 32) | partition;
    }
  }

  /**
   * Opens engines that say they keep local files (in memory here), by directory; a directory in
   * {@link #damaged} fails its next open as damaged files do.
   */
  static final class LocalEngines implements StorageEngineFactory {
    final Map<Path, WatchedEngine> opened = new ConcurrentHashMap<>();
    final Set<Path> damaged = ConcurrentHashMap.newKeySet();

    @Override
    public String shortName() {
      return "test-local";
    }

    @Override
    public Set<String> storeKeys() {
      return Set.of();
    }

    @Override
    public StorageEngine open(EngineSpec spec, Path dir, EngineResources resources) {
      if (damaged.remove(dir)) {
        throw new CorruptStoreException("checksum mismatch in " + dir, null);
      }
      try {
        Files.createDirectories(dir); // as an engine with local files makes its directory
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      WatchedEngine engine = new WatchedEngine() {
        @Override
        public boolean persistent() {
          return true;
        }
      };
      opened.put(dir, engine);
      return engine;
    }
  }
}
