package io.millrace.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.spi.engine.CorruptStoreException;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.store.CachedStore;
import io.millrace.core.store.StoreFlusher;
import io.millrace.core.store.StoreResources;
import io.millrace.core.store.StoreSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The RocksDB engine under the store API: semantics, persistence, options, damage, memory. */
class RocksDbStoreTest {
  @TempDir Path tmp;
  private final RocksDbEngineFactory factory = new RocksDbEngineFactory();
  private final StoreResources resources = new StoreResources(Map.of(), 1);

  @AfterEach
  void close() {
    resources.close();
  }

  private StoreSpec spec(Map<String, String> config, int cache, int batch) {
    return new StoreSpec("s", factory, new StringSerde(), new LongSerde(), null, null, cache,
        batch, config);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Random operations against a reference sorted map, with the store closed and reopened from its
   * files now and then: what was flushed survives, in key order. Run again with the flushes
   * written to RocksDB on a flusher thread while this thread reads, as a container does.
   */
  @ParameterizedTest(name = "flushes written on a thread of their own: {0}")
  @ValueSource(booleans = {false, true})
  void randomOperationsAgreeWithAReferenceMapAcrossReopens(boolean threadedFlusher) {
    for (long seed = 1; seed <= 8; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      Path dir = tmp.resolve("seed-" + seed + "-" + threadedFlusher);
      StoreSpec spec = spec(Map.of(), 1 + random.nextInt(16), 1 + random.nextInt(16));
      StoreFlusher flusher = threadedFlusher ? StoreFlusher.threaded("test-store-flush")
          : StoreFlusher.inline();
      CachedStore<String, Long> store = new CachedStore<>("s", spec,
          factory.open(spec.engineSpec(), dir, resources), null, flusher);
      TreeMap<String, Long> reference = new TreeMap<>(
          (a, b) -> Arrays.compareUnsigned(bytes(a), bytes(b)));
      for (int op = 0; op < 3_000; op++) {
        String key = "k" + random.nextInt(60);
        switch (random.nextInt(8)) {
          case 0, 1, 2 -> {
            long value = random.nextLong(1_000_000);
            store.put(key, value);
            reference.put(key, value);
          }
          case 3 -> {
            store.delete(key);
            reference.remove(key);
          }
          case 4 -> assertThat(store.get(key)).as("seed %d op %d", seed, op)
              .isEqualTo(reference.get(key));
          case 5 -> {
            try (KeyValueIterator<String, Long> it = store.prefix("k" + random.nextInt(6))) {
              List<String> got = new ArrayList<>();
              it.forEachRemaining(kv -> got.add(kv.key() + "=" + kv.value()));
              assertThat(got).isNotNull();
            }
          }
          case 6 -> {
            if (random.nextInt(50) == 0) {
              store.flush();
              flusher.drain(); // as a commit does before the stores close
              store.close();
              store = new CachedStore<>("s", spec, factory.open(spec.engineSpec(), dir, resources), null,
                  flusher);
            }
          }
          default -> {
            String to = "k" + random.nextInt(60);
            if (Arrays.compareUnsigned(bytes(key), bytes(to)) <= 0) {
              try (KeyValueIterator<String, Long> it = store.range(key, to)) {
                List<KeyValue<String, Long>> got = new ArrayList<>();
                it.forEachRemaining(got::add);
                List<KeyValue<String, Long>> want = new ArrayList<>();
                reference.subMap(key, to).forEach((k, v) -> want.add(new KeyValue<>(k, v)));
                assertThat(got).as("seed %d op %d range", seed, op).isEqualTo(want);
              }
            }
          }
        }
      }
      store.flush();
      flusher.drain();
      flusher.close();
      store.close();
      StorageEngine reopened = factory.open(spec.engineSpec(), dir, resources);
      CachedStore<String, Long> last = new CachedStore<>("s", spec, reopened, null);
      try (KeyValueIterator<String, Long> it = last.all()) {
        TreeMap<String, Long> got = new TreeMap<>(reference.comparator());
        it.forEachRemaining(kv -> got.put(kv.key(), kv.value()));
        assertThat(got).isEqualTo(reference);
      }
      last.close();
    }
  }

  @Test
  void rocksDbOptionsPassThroughByTheirNativeNamesAndAMisspeltOneIsNamed() {
    StoreSpec good = spec(Map.of("rocksdb.write_buffer_size", "1048576",
        "rocksdb.max_background_jobs", "1", "rocksdb.compression", "kNoCompression"), 10, 10);
    factory.validate(good.engineSpec());
    factory.open(good.engineSpec(), tmp.resolve("good"), resources).close();

    StoreSpec bad = spec(Map.of("rocksdb.write_bufer_size", "1048576"), 10, 10);
    assertThatThrownBy(() -> factory.validate(bad.engineSpec())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("stores.s.rocksdb.write_bufer_size=1048576")
        .hasMessageContaining("not a RocksDB option");
  }

  /** Keys and values of every size, around the sizes JNI treats apart, come back whole. */
  @Test
  void keysAndValuesOfAnySizeAreReadWhole() {
    StoreSpec spec = spec(Map.of(), 10, 10);
    try (StorageEngine engine = factory.open(spec.engineSpec(), tmp.resolve("sizes"), resources)) {
      SplittableRandom random = new SplittableRandom(7);
      int[] sizes = {0, 1, 8, 255, 256, 257, 1023, 1024, 1025, 4096, 65535, 65536, 65537, 200_000};
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (int k : sizes) {
        for (int v : sizes) {
          byte[] key = new byte[Math.max(4, k)];
          random.nextBytes(key);
          java.nio.ByteBuffer.wrap(key).putInt(keys.size()); // unique, whatever the random bytes
          byte[] value = new byte[v];
          random.nextBytes(value);
          keys.add(key);
          values.add(value);
        }
      }
      engine.write(keys, values);
      for (int round = 0; round < 2; round++) { // the second round reads with grown buffers
        for (int i = 0; i < keys.size(); i++) {
          assertThat(engine.get(keys.get(i))).as("key %d bytes, value %d bytes",
              keys.get(i).length, values.get(i).length).isEqualTo(values.get(i));
          byte[] missing = keys.get(i).clone();
          java.nio.ByteBuffer.wrap(missing).putInt(-1 - i); // no key was given a negative number
          assertThat(engine.get(missing)).isNull();
        }
      }
    }
  }

  @Test
  void damagedFilesAreReportedAsCorrupt() throws Exception {
    Path dir = tmp.resolve("damaged");
    StoreSpec spec = spec(Map.of(), 10, 10);
    CachedStore<String, Long> store = new CachedStore<>("s", spec,
        factory.open(spec.engineSpec(), dir, resources), null);
    store.put("a", 1L);
    store.flush();
    store.close();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("MANIFEST"))
          .toList()) {
        Files.write(f, "this is not a manifest".getBytes(StandardCharsets.UTF_8));
      }
    }

    assertThatThrownBy(() -> factory.open(spec.engineSpec(), dir, resources))
        .isInstanceOf(CorruptStoreException.class).hasMessageContaining(dir.toString());
  }

  @Test
  void a100TaskContainerSharesOneMemoryBudget() {
    StoreResources small = new StoreResources(Map.of("stores.rocksdb.memory.bytes",
        Long.toString(32L << 20)), 100);
    StoreSpec spec = spec(Map.of(), 1, 1000);
    List<CachedStore<String, Long>> stores = new ArrayList<>();
    try {
      for (int t = 0; t < 100; t++) {
        stores.add(new CachedStore<>("s" + t, spec, factory.open(spec.engineSpec(), tmp.resolve("t" + t),
            small), null));
      }
      SplittableRandom random = new SplittableRandom(7);
      for (int i = 0; i < 300_000; i++) {
        stores.get(random.nextInt(100)).put("key-" + random.nextInt(1_000_000),
            random.nextLong());
      }
      for (CachedStore<String, Long> s : stores) {
        s.flush();
      }
      RocksDbMemory memory = small.shared("rocksdb", () -> {
        throw new AssertionError("the stores created it");
      });
      // Memtables of 100 instances, charged to one 32 MB cache: the usage stays near the budget
      // (100 separate default memtables would be 100 x 64 MB).
      System.out.printf("100 RocksDB instances, 32 MB budget: cache usage %.1f MB%n",
          memory.usage() / 1e6);
      assertThat(memory.usage()).isLessThanOrEqualTo((32L << 20) * 12 / 10);
    } finally {
      for (CachedStore<String, Long> s : stores) {
        s.close();
      }
      small.close();
    }
  }

  @Test
  void memtableBloomFiltersAreOnlyGivenWhereTheMemoryBudgetAffordsThem() {
    long memtables = (256L << 20) / 3; // the default budget's memtable share
    assertThat(RocksDbEngine.memtableBloomRatio(16L << 20, memtables, 8))
        .as("8 tasks in the default budget: 2%% of each 16 MB memtable")
        .isCloseTo(0.02, org.assertj.core.api.Assertions.within(1e-6));
    assertThat(RocksDbEngine.memtableBloomRatio(16L << 20, (32L << 20) / 3, 100))
        .as("100 tasks in 32 MB: a filter would overrun the budget").isZero();
    double oneLarge = RocksDbEngine.memtableBloomRatio(256L << 20, (96L << 20) / 3, 1);
    assertThat(oneLarge * (256L << 20)).as("at most an eighth of the instance's share")
        .isLessThanOrEqualTo((96L << 20) / 3 / 16.0);
  }
}
