package io.millrace.bench.jmh;

import io.millrace.api.store.KeyValueIterator;
import io.millrace.core.serde.BytesSerde;
import io.millrace.core.store.CachedStore;
import io.millrace.core.store.StoreSpec;
import io.millrace.rocksdb.RocksDbEngineFactory;
import io.millrace.spi.engine.EngineResources;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngine;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A short range read of a RocksDB store through its cache, as a stream-stream join's lookup does
 * once per record (Nexmark q8): one key's entries, two here, of 100,000 keys. {@code trace}
 * says whether each iterator records the stack it was opened from (as a store does after its
 * first leaked iterator; before, it did always): the cost of that stack, with -prof gc.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StoreRangeBenchmark {
  private static final int KEYS = 100_000;

  /** Whether iterators record where they were opened. */
  @Param({"false", "true"})
  public boolean trace;

  private Path dir;
  private StorageEngine engine;
  private CachedStore<byte[], byte[]> store;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("millrace-range-bench");
    Map<String, AutoCloseable> shared = new HashMap<>();
    EngineResources resources = new EngineResources() {
      @Override
      public Map<String, String> jobConfig() {
        return Map.of();
      }

      @Override
      public int instances() {
        return 1;
      }

      @Override
      @SuppressWarnings("unchecked")
      public <T extends AutoCloseable> T shared(String name, Supplier<T> create) {
        return (T) shared.computeIfAbsent(name, n -> create.get());
      }
    };
    engine = new RocksDbEngineFactory().open(new EngineSpec("pairs", Map.of()), dir, resources);
    StoreSpec spec = new StoreSpec("pairs", new RocksDbEngineFactory(), new BytesSerde(),
        new BytesSerde(), null, null, 10_000, 1_000, Map.of());
    store = new CachedStore<>("pairs of Partition 0", spec, engine, null);
    for (int k = 0; k < KEYS; k++) {
      store.put(key(k, 1), new byte[100]);
      store.put(key(k, 2), new byte[100]);
    }
    store.flush();
    if (trace) {
      store.traceIterators();
    }
  }

  /** Key k's entry at time t: the key first, then the time, as the join's buffer lays them. */
  private static byte[] key(int k, long t) {
    return ByteBuffer.allocate(12).putInt(k).putLong(t).array();
  }

  @Benchmark
  public int rangeOfOneKey() {
    int k = next++ % KEYS;
    int found = 0;
    try (KeyValueIterator<byte[], byte[]> it = store.range(key(k, 0), key(k, 3))) {
      while (it.hasNext()) {
        found += it.next().value().length;
      }
    }
    return found;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    store.close(); // closes its engine
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
