package io.millrace.core.store;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class CachedStoreTest {
  /** Records what a store sends to its changelog. */
  static final class RecordingProducer implements SystemProducer {
    final List<String> sent = new ArrayList<>();

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      sent.add(new String((byte[]) key, StandardCharsets.UTF_8) + "="
          + (value == null ? "null" : new LongSerde().fromBytes((byte[]) value)));
    }

    @Override
    public void flush() {}

    @Override
    public void stop() {}
  }

  private final MemoryEngine engine = new MemoryEngine();
  private final RecordingProducer changelog = new RecordingProducer();

  private CachedStore<String, Long> store(int cacheSize, int writeBatch) {
    StoreSpec spec = new StoreSpec("counts", new MemoryEngine.Factory(), new StringSerde(),
        new LongSerde(), "mem", "counts-changelog", cacheSize, writeBatch, Map.of());
    return new CachedStore<>("counts of Partition 0", spec, engine,
        new ChangelogWriter(changelog, 0, 0));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aPutAfterTheCachesSlotsWereReusedByOtherKeysWritesOnlyItsOwnKey() {
    CachedStore<String, Long> store = store(1, 100); // each new key evicts the one before
    store.put("c", 3L);
    store.flush();
    String a = new String("a"); // one object for the get and the put: the put's fast path
    assertThat(store.get(a)).isNull(); // a's slot; c evicted, its slot free
    store.put("b", 2L); // takes c's old slot; a evicted, its slot free
    assertThat(store.get("c")).isEqualTo(3L); // c again, from the engine, in a's old slot

    store.put(a, 7L); // the slot a had holds c now: it must not be written through

    assertThat(store.get("c")).isEqualTo(3L);
    assertThat(store.get(a)).isEqualTo(7L);
    assertThat(store.get("b")).isEqualTo(2L);
    store.flush();
    assertThat(changelog.sent).containsExactly("c=3", "b=2", "a=7");
  }

  @Test
  void readsSeeTheTasksOwnWritesBeforeAnyFlush() {
    CachedStore<String, Long> store = store(100, 100);
    store.put("a", 1L);
    store.put("b", 2L);
    store.delete("b");

    assertThat(store.get("a")).isEqualTo(1L);
    assertThat(store.get("b")).isNull();
    assertThat(engine.get(bytes("a"))).as("not in the engine before a flush").isNull();
    assertThat(changelog.sent).isEmpty();
  }

  @Test
  void aFlushWritesEachDirtyKeyOnceInFirstWriteOrderAndDeletesAsTombstones() {
    CachedStore<String, Long> store = store(100, 100);
    store.put("b", 1L);
    store.put("a", 1L);
    store.put("b", 2L);
    store.put("c", 3L);
    store.delete("c");
    store.flush();

    assertThat(changelog.sent).containsExactly("b=2", "a=1", "c=null");
    assertThat(new LongSerde().fromBytes(engine.get(bytes("b")))).isEqualTo(2L);
    assertThat(engine.get(bytes("c"))).isNull();
    store.flush();
    assertThat(changelog.sent).as("nothing dirty, nothing sent").hasSize(3);
  }

  @Test
  void reachingTheWriteBatchSizeFlushes() {
    CachedStore<String, Long> store = store(100, 3);
    store.put("a", 1L);
    store.put("b", 1L);
    assertThat(changelog.sent).isEmpty();
    store.put("c", 1L);
    assertThat(changelog.sent).containsExactly("a=1", "b=1", "c=1");
    assertThat(store.dirtyCount()).isZero();
  }

  @Test
  void aDirtyEntryEvictedFromTheCacheIsStillReadAndStillFlushed() {
    CachedStore<String, Long> store = store(2, 100);
    store.put("a", 1L);
    store.put("b", 2L);
    store.put("c", 3L); // evicts "a" from the cache, still dirty

    assertThat(store.get("a")).isEqualTo(1L);
    store.flush();
    assertThat(changelog.sent).containsExactly("a=1", "b=2", "c=3");
  }

  @Test
  void iteratorsSeeDirtyWritesInKeyOrderAndPrefixAndRangeBoundsHold() {
    CachedStore<String, Long> store = store(100, 100);
    for (String k : List.of("apple", "apricot", "banana", "app", "b", "a")) {
      store.put(k, (long) k.length());
    }
    try (KeyValueIterator<String, Long> all = store.all()) {
      List<String> keys = new ArrayList<>();
      all.forEachRemaining(kv -> keys.add(kv.key()));
      assertThat(keys).containsExactly("a", "app", "apple", "apricot", "b", "banana");
    }
    try (KeyValueIterator<String, Long> ap = store.prefix("ap")) {
      List<KeyValue<String, Long>> entries = new ArrayList<>();
      ap.forEachRemaining(entries::add);
      assertThat(entries).containsExactly(new KeyValue<>("app", 3L), new KeyValue<>("apple", 5L),
          new KeyValue<>("apricot", 7L));
    }
    try (KeyValueIterator<String, Long> range = store.range("app", "b")) {
      List<String> keys = new ArrayList<>();
      range.forEachRemaining(kv -> keys.add(kv.key()));
      assertThat(keys).containsExactly("app", "apple", "apricot");
    }
  }

  @Test
  void aPrefixOfMaximalBytesReachesTheEnd() {
    assertThat(CachedStore.after(new byte[] {1, (byte) 0xFF})).containsExactly(2);
    assertThat(CachedStore.after(new byte[] {(byte) 0xFF, (byte) 0xFF})).isNull();
    assertThat(CachedStore.after(new byte[] {})).isNull();
  }

  @Test
  void anUnclosedIteratorIsClosedAndCountedAtCommitAndAClosedOneRefusesNext() {
    CachedStore<String, Long> store = store(100, 100);
    store.put("a", 1L);
    KeyValueIterator<String, Long> leaked = store.all();
    KeyValueIterator<String, Long> closed = store.all();
    closed.close();
    closed.close(); // twice is fine

    assertThat(store.closeLeakedIterators()).isEqualTo(1);
    assertThat(store.closeLeakedIterators()).isZero();
    assertThat(leaked.hasNext()).isFalse();
    assertThatThrownBy(leaked::next).isInstanceOf(NoSuchElementException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void iteratorsRecordWhereTheyWereOpenedOnlyOnceTheStoreHasLeakedOne() {
    CachedStore<String, Long> store = store(100, 100);
    store.all().close();
    assertThat(store.tracesIterators()).as("no stack per iterator while none leaked").isFalse();
    store.all(); // leaked
    assertThat(store.closeLeakedIterators()).isEqualTo(1);
    assertThat(store.tracesIterators()).as("the next leak says where it was opened").isTrue();
  }

  @Test
  void nullKeysAndValuesAreRefused() {
    CachedStore<String, Long> store = store(100, 100);
    assertThatThrownBy(() -> store.put(null, 1L)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.put("a", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("use delete");
    assertThatThrownBy(() -> store.get(null)).isInstanceOf(NullPointerException.class);
  }

  /**
   * A memory engine whose writes the flusher may do on its thread: each write waits for the gate,
   * then (when {@code maxDelayNanos > 0}) a random pause, so reads run while writes lag behind.
   */
  static final class LaggingEngine extends WatchedEngine {
    final java.util.concurrent.CountDownLatch gate;
    final long maxDelayNanos;

    LaggingEngine(boolean gateOpen, long maxDelayNanos) {
      this.gate = new java.util.concurrent.CountDownLatch(gateOpen ? 0 : 1);
      this.maxDelayNanos = maxDelayNanos;
    }

    void release() {
      gate.countDown();
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (maxDelayNanos > 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(
            java.util.concurrent.ThreadLocalRandom.current().nextLong(maxDelayNanos));
      }
      super.write(keys, values);
    }

    @Override
    public boolean concurrentWrites() {
      return true;
    }
  }

  private static StoreSpec smallSpec(int cacheSize, int writeBatch) {
    return new StoreSpec("s", new MemoryEngine.Factory(), new StringSerde(), new LongSerde(), null,
        null, cacheSize, writeBatch, Map.of());
  }

  @Test
  @org.junit.jupiter.api.Timeout(60)
  void anEntryEvictedBeforeTheFlusherWroteItIsReadFromTheStoreNotFromTheEngine() {
    LaggingEngine engine = new LaggingEngine(false, 0); // writes held back until release()
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      CachedStore<String, Long> store = new CachedStore<>("s", smallSpec(2, 100), engine, null,
          flusher);
      store.put("a", 1L);
      store.put("b", 2L);
      store.put("c", 3L); // evicts a, dirty: a flush of a and b, which the engine waits to write
      store.put("d", 4L); // evicts b: flushed, not yet written
      assertThat(engine.memory.get(bytes("a"))).as("the engine is behind").isNull();

      assertThat(store.get("a")).isEqualTo(1L);
      assertThat(store.get("b")).isEqualTo(2L);
      assertThat(store.get("c")).isEqualTo(3L);
      store.put("a", 10L);
      store.delete("b");
      assertThat(store.get("d")).isEqualTo(4L);
      assertThat(store.get("a")).isEqualTo(10L);
      assertThat(store.get("b")).isNull();

      engine.release();
      store.flush();
      flusher.drain();
      assertThat(new LongSerde().fromBytes(engine.memory.get(bytes("a")))).isEqualTo(10L);
      assertThat(engine.memory.get(bytes("b"))).isNull();
      assertThat(new LongSerde().fromBytes(engine.memory.get(bytes("c")))).isEqualTo(3L);
      assertThat(new LongSerde().fromBytes(engine.memory.get(bytes("d")))).isEqualTo(4L);
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(60)
  void aWriteTheFlusherFailedFailsTheStoreBeforeItsEntriesLeaveTheCache() {
    StorageEngine engine = new WatchedEngine() {
      @Override
      public void write(List<byte[]> keys, List<byte[]> values) {
        throw new IllegalStateException("store s: RocksDB write failed: No space left on device");
      }

      @Override
      public boolean concurrentWrites() {
        return true;
      }
    };
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      CachedStore<String, Long> store = new CachedStore<>("s", smallSpec(2, 100), engine, null,
          flusher);
      store.put("a", 1L);
      store.put("b", 2L);
      // Evicts a, dirty: a flush of a and b, which the flusher fails to write (this put already
      // fails if the flusher was quick).
      org.assertj.core.api.Assertions.catchThrowable(() -> store.put("c", 3L));
      assertThatThrownBy(flusher::drain).hasMessageContaining("No space left on device");

      // Evicting a now would leave it nowhere: the engine never got it.
      assertThatThrownBy(() -> store.put("d", 4L)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("No space left on device");
      assertThat(store.get("a")).isEqualTo(1L);
    }
  }

  /**
   * An iterator does not wait for the flusher (it did: a thread round trip per range read): the
   * engine's writes are held back for the whole test, and ranges still see every flushed and
   * dirty put and delete, merged with the engine's entries in key order.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void anIteratorSeesFlushesTheFlusherHasNotWrittenWithoutWaitingForThem() {
    LaggingEngine engine = new LaggingEngine(false, 0); // writes held back until release()
    engine.memory.write(List.of(bytes("k1"), bytes("k9")), // in the engine already
        List.of(new LongSerde().toBytes(100L), new LongSerde().toBytes(900L)));
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      CachedStore<String, Long> store = new CachedStore<>("s", smallSpec(2, 100), engine, null,
          flusher);
      try (KeyValueIterator<String, Long> first = store.all()) {
        assertThat(first.next()).isEqualTo(new KeyValue<>("k1", 100L));
      }
      for (int i = 0; i < 5; i++) {
        store.put("k" + i, (long) i); // each evicts: flushes the flusher cannot write yet
      }
      store.delete("k9"); // dirty: hides the engine's k9
      store.put("k3", 33L);
      List<String> seen = new ArrayList<>();
      try (KeyValueIterator<String, Long> it = store.all()) {
        it.forEachRemaining(kv -> seen.add(kv.key() + "=" + kv.value()));
      }
      assertThat(seen).containsExactly("k0=0", "k1=1", "k2=2", "k3=33", "k4=4");
      try (KeyValueIterator<String, Long> it = store.range("k1", "k4")) {
        List<String> part = new ArrayList<>();
        it.forEachRemaining(kv -> part.add(kv.key() + "=" + kv.value()));
        assertThat(part).containsExactly("k1=1", "k2=2", "k3=33");
      }
      assertThat(engine.memory.get(bytes("k0"))).as("the engine is still behind").isNull();
      engine.release();
      store.flush();
      flusher.drain();
      try (KeyValueIterator<String, Long> it = store.all()) {
        List<String> after = new ArrayList<>();
        it.forEachRemaining(kv -> after.add(kv.key() + "=" + kv.value()));
        assertThat(after).isEqualTo(seen);
      }
    }
  }

  /**
   * Writes during an iteration are not seen by it in the cache's part (it took a copy), and the
   * store's next iterator sees them.
   */
  @Test
  void anIteratorTakesTheCachesPartOfItsRangeWhenItOpens() {
    CachedStore<String, Long> store = store(100, 100);
    store.put("a", 1L);
    store.put("c", 3L);
    try (KeyValueIterator<String, Long> it = store.all()) {
      assertThat(it.next()).isEqualTo(new KeyValue<>("a", 1L));
      store.put("b", 2L);
      store.delete("c");
      assertThat(it.next()).isEqualTo(new KeyValue<>("c", 3L));
      assertThat(it.hasNext()).isFalse();
    }
    try (KeyValueIterator<String, Long> it = store.all()) {
      List<String> keys = new ArrayList<>();
      it.forEachRemaining(kv -> keys.add(kv.key()));
      assertThat(keys).containsExactly("a", "b");
    }
  }

  /** Random operations against a reference sorted map, through small caches and batches. */
  @Test
  void randomOperationsAgreeWithAReferenceMap() {
    for (long seed = 1; seed <= 30; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      StoreSpec spec = smallSpec(1 + random.nextInt(8), 1 + random.nextInt(8));
      agreeWithAReferenceMap(seed, random, new CachedStore<>("s", spec, new MemoryEngine(), null));
    }
  }

  /** The same, with the engine's writes done on the flusher's thread, late by up to 0.2 ms. */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void randomOperationsAgreeWithAReferenceMapWhileTheEngineWritesBehind() {
    for (long seed = 1; seed <= 30; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      StoreSpec spec = smallSpec(1 + random.nextInt(8), 1 + random.nextInt(8));
      try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
        agreeWithAReferenceMap(seed, random, new CachedStore<>("s", spec,
            new LaggingEngine(true, 200_000), null, flusher));
      }
    }
  }

  /**
   * The same with ranges rare and many keys: an iterated store lists the entries written between
   * two ranges unsorted (past its list's first size, so it drops the forgotten ones and grows),
   * and the next range sorts them in; slots are reused as the small cache evicts.
   */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void rareRangesAgreeWithAReferenceMapWhenManyWritesComeBetweenThem() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      StoreSpec spec = smallSpec(50 + random.nextInt(400), 1 + random.nextInt(300));
      agreeWithAReferenceMap(seed, random, new CachedStore<>("s", spec, new MemoryEngine(), null),
          500, 30);
      try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
        agreeWithAReferenceMap(seed, random, new CachedStore<>("s", spec,
            new LaggingEngine(true, 200_000), null, flusher), 500, 30);
      }
    }
  }

  private static void agreeWithAReferenceMap(long seed, SplittableRandom random,
      CachedStore<String, Long> store) {
    agreeWithAReferenceMap(seed, random, store, 40, 1);
  }

  /** Random operations, {@code keys} keys; a range (else a flush) in one of {@code rangeOdds}. */
  private static void agreeWithAReferenceMap(long seed, SplittableRandom random,
      CachedStore<String, Long> store, int keys, int rangeOdds) {
    TreeMap<String, Long> reference = new TreeMap<>(
        (a, b) -> Arrays.compareUnsigned(bytes(a), bytes(b)));
    int ops = rangeOdds > 1 ? 6_000 : 2_000; // rare ranges: enough of them to matter
    for (int op = 0; op < ops; op++) {
      String key = "k" + random.nextInt(keys);
      int kind = random.nextInt(7);
      if (kind == 5 && rangeOdds > 1 && random.nextInt(rangeOdds) != 0) {
        kind = 6;
      }
      switch (kind) {
        case 0, 1, 2 -> {
          long value = random.nextLong(1000);
          store.put(key, value);
          reference.put(key, value);
        }
        case 3 -> {
          store.delete(key);
          reference.remove(key);
        }
        case 4 -> assertThat(store.get(key)).as("seed %d op %d get %s", seed, op, key)
            .isEqualTo(reference.get(key));
        case 5 -> {
          String to = "k" + random.nextInt(keys);
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
        default -> {
          if (random.nextInt(10) == 0) {
            store.flush();
          }
        }
      }
    }
    try (KeyValueIterator<String, Long> it = store.all()) {
      List<String> all = new ArrayList<>();
      it.forEachRemaining(kv -> all.add(kv.key()));
      assertThat(all).isEqualTo(new ArrayList<>(reference.keySet()));
    }
  }

  /**
   * An iterated store lists the writes between two ranges unsorted: 200 of them (past the list's
   * first size, all kept when it compacts) are all seen by the next range, and a slot written,
   * flushed, evicted and reused by another key is seen under the new key.
   */
  @Test
  void writesListedBetweenRangesAreAllSeenByTheNextOneEvenInAReusedSlot() {
    CachedStore<String, Long> store = store(1_000, 1_000);
    try (KeyValueIterator<String, Long> first = store.all()) {
      assertThat(first.hasNext()).isFalse();
    }
    TreeMap<String, Long> written = new TreeMap<>();
    for (int i = 0; i < 200; i++) {
      store.put("k" + (1000 + i), (long) i);
      written.put("k" + (1000 + i), (long) i);
    }
    List<String> seen = new ArrayList<>();
    try (KeyValueIterator<String, Long> it = store.all()) {
      it.forEachRemaining(kv -> seen.add(kv.key() + "=" + kv.value()));
    }
    List<String> want = new ArrayList<>();
    written.forEach((k, v) -> want.add(k + "=" + v));
    assertThat(seen).isEqualTo(want);

    CachedStore<String, Long> small = store(1, 100);
    try (KeyValueIterator<String, Long> first = small.all()) {
      assertThat(first.hasNext()).isFalse();
    }
    small.put("a", 1L);
    small.flush(); // in the engine: no longer listed
    small.put("b", 2L); // evicts a, takes a slot
    small.put("c", 3L); // evicts b (flushing it first), may reuse its slot
    try (KeyValueIterator<String, Long> it = small.range("b", "d")) {
      List<KeyValue<String, Long>> got = new ArrayList<>();
      it.forEachRemaining(got::add);
      assertThat(got).containsExactly(new KeyValue<>("b", 2L), new KeyValue<>("c", 3L));
    }
  }

  @Test
  void byteArrayKeysAreComparedByContent() {
    StoreSpec spec = new StoreSpec("raw", new MemoryEngine.Factory(),
        new io.millrace.core.serde.BytesSerde(), new LongSerde(), null, null, 100, 100, Map.of());
    CachedStore<byte[], Long> store = new CachedStore<>("raw", spec, new MemoryEngine(), null);
    store.put(bytes("k"), 1L);

    assertThat(store.get(bytes("k"))).as("an equal array, not the same one").isEqualTo(1L);
    store.put(bytes("k"), 2L);
    store.flush();
    assertThat(store.flushedEntries()).as("one key, flushed once").isEqualTo(1);
    assertThat(store.get(bytes("k"))).isEqualTo(2L);
  }
}
