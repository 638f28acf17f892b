package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Serde;
import io.millrace.api.store.KeyValueStore;
import io.millrace.spi.engine.EngineResources;
import io.millrace.spi.engine.EngineSpec;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.engine.StorageEngineFactory;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit's hand-over: every store's dirty entries serialized first, then given to the flusher's
 * thread as one batch; a value that cannot be serialized hands nothing over and leaves every
 * store's entries dirty for the next one.
 */
class StoreCommitParticipantHandOverTest {
  /** The engines opened, by store name: each takes writes from any thread, as RocksDB does. */
  private final Map<String, WatchedEngine> engines = new ConcurrentHashMap<>();
  @TempDir Path dir;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void everyStoresEntriesGoToTheFlusherAsOneBatchOnceAllAreSerialized() {
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      StoreRegistry stores = stores(flusher);
      Map<String, KeyValueStore<?, ?>> task = stores.open(0, "Partition 0", Map.of());
      stores.commits().parkFlusher(); // held up: what is handed over from here on is only queued
      for (long i = 0; i < 100; i++) {
        counts(task, "a").put("k" + i, i);
        counts(task, "b").put("k" + i, i + 1_000);
      }

      long handed = stores.commits().handOver();

      assertThat(handed).as("one batch for both stores").isEqualTo(1);
      assertThat(engines.get("a").get(key("k0"))).as("nothing taken yet").isNull();
      stores.commits().unparkFlusher();
      stores.commits().awaitHandedOver(handed);
      assertThat(engines.get("a").get(key("k99"))).isEqualTo(new LongSerde().toBytes(99L));
      assertThat(engines.get("b").get(key("k99"))).isEqualTo(new LongSerde().toBytes(1_099L));
      assertThat(counts(task, "b").get("k5")).isEqualTo(1_005L);
      stores.close();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aValueThatCannotBeSerializedHandsNothingOverAndEveryStoresEntriesStayDirty() {
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      StoreRegistry stores = stores(flusher);
      Map<String, KeyValueStore<?, ?>> task = stores.open(0, "Partition 0", Map.of());
      counts(task, "a").put("x", 1L);
      counts(task, "b").put("y", RefusingLongSerde.REFUSED);

      assertThatThrownBy(stores.commits()::handOver).hasMessageContaining("store b of Partition 0")
          .hasMessageContaining("cannot serialize value " + RefusingLongSerde.REFUSED);
      assertThat(engines.get("a").get(key("x"))).as("store a's entry not written").isNull();

      counts(task, "b").put("y", 2L); // the task mends it: the next hand-over takes both
      long handed = stores.commits().handOver();
      assertThat(handed).as("the flusher's first batch").isEqualTo(1);
      stores.commits().awaitHandedOver(handed);
      assertThat(engines.get("a").get(key("x"))).isEqualTo(new LongSerde().toBytes(1L));
      assertThat(engines.get("b").get(key("y"))).isEqualTo(new LongSerde().toBytes(2L));
      stores.close();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anEntryHandedOverStaysCachedUntilTheFlusherHasWrittenIt() {
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      StoreRegistry stores = stores(flusher, 10);
      Map<String, KeyValueStore<?, ?>> task = stores.open(0, "Partition 0", Map.of());
      for (long i = 0; i < 5; i++) {
        counts(task, "a").put("old" + i, i);
      }
      stores.commits().parkFlusher();
      long handed = stores.commits().handOver(); // queued, not written: the flusher is parked
      for (long i = 0; i < 30; i++) { // 30 new keys through a cache of 10
        counts(task, "a").put("new" + i, i);
      }

      assertThat(engines.get("a").get(key("old0"))).as("not in the engine yet").isNull();
      assertThat(counts(task, "a").get("old0")).as("so still in the cache").isEqualTo(0L);
      stores.commits().unparkFlusher();
      stores.commits().awaitHandedOver(handed);
      assertThat(engines.get("a").get(key("old4"))).isEqualTo(new LongSerde().toBytes(4L));
      stores.close();
    }
  }

  @SuppressWarnings("unchecked")
  private static KeyValueStore<String, Long> counts(Map<String, KeyValueStore<?, ?>> task,
      String name) {
    return (KeyValueStore<String, Long>) task.get(name);
  }

  private static byte[] key(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private StoreRegistry stores(StoreFlusher flusher) {
    return stores(flusher, 1_000);
  }

  /** Stores a and b (b refuses one value), each caching {@code cacheSize} entries. */
  private StoreRegistry stores(StoreFlusher flusher, int cacheSize) {
    return StoreRegistry.create(List.of(spec("a", new LongSerde(), cacheSize),
            spec("b", new RefusingLongSerde(), cacheSize)), dir, Map.of(), 1,
        (spec, task) -> null, system -> null, flusher, false);
  }

  private StoreSpec spec(String name, Serde<Long> values, int cacheSize) {
    return new StoreSpec(name, new ConcurrentEngines(name), new StringSerde(), values, null, null,
        cacheSize, cacheSize, Map.of());
  }

  /** A long serde that refuses one value, as a user's serde refuses what it cannot encode. */
  private static final class RefusingLongSerde implements Serde<Long> {
    static final long REFUSED = -1L;
    private final LongSerde longs = new LongSerde();

    @Override
    public byte[] toBytes(Long value) {
      if (value == REFUSED) {
        throw new IllegalArgumentException("negative counts are not encodable");
      }
      return longs.toBytes(value);
    }

    @Override
    public Long fromBytes(byte[] bytes) {
      return longs.fromBytes(bytes);
    }
  }

  /** Opens in-memory engines that take writes from any thread, kept by store name. */
  private final class ConcurrentEngines implements StorageEngineFactory {
    private final String name;

    ConcurrentEngines(String name) {
      this.name = name;
    }

    @Override
    public String shortName() {
      return "test-concurrent";
    }

    @Override
    public Set<String> storeKeys() {
      return Set.of();
    }

    @Override
    public StorageEngine open(EngineSpec spec, Path dir, EngineResources resources) {
      WatchedEngine engine = new WatchedEngine() {
        @Override
        public synchronized void write(List<byte[]> keys, List<byte[]> values) {
          super.write(keys, values);
        }

        @Override
        public synchronized byte[] get(byte[] key) {
          return super.get(key);
        }

        @Override
        public boolean concurrentWrites() {
          return true;
        }
      };
      engines.put(name, engine);
      return engine;
    }
  }
}
