package io.millrace.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.millrace.api.store.KeyValueIterator;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.store.CachedStore;
import io.millrace.core.store.MemoryEngine;
import io.millrace.core.store.StoreFlusher;
import io.millrace.core.store.StoreSpec;
import io.millrace.spi.engine.StorageEngine;
import java.nio.charset.StandardCharsets;
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

/**
 * What every {@link StorageEngine} must do, run against each implementation by a subclass:
 * batches applied in order, reads of what was written, deletes, ranges in unsigned byte order with
 * an inclusive start and an exclusive end, and (for a persistent engine) what a sync made durable
 * found again after reopening, also when the sync ran beside writes (an engine that takes writes
 * from another thread: a commit in the background syncs while the flusher writes). And a task's
 * store over the engine ({@link CachedStore}, with the flusher's thread where the engine takes
 * writes from one): its ranges merge what the cache holds that the engine may not (dirty puts and
 * deletes, flushes not yet written) with the engine's entries, in the engine's order.
 */
public abstract class StorageEngineContract {
  @TempDir protected Path dir;
  private final List<StorageEngine> opened = new ArrayList<>();

  /** Opens (or reopens) the engine whose files are in {@code dir}. */
  protected abstract StorageEngine open(Path dir);

  private StorageEngine engine() {
    StorageEngine engine = open(dir);
    opened.add(engine);
    return engine;
  }

  @AfterEach
  void closeEngines() {
    for (StorageEngine engine : opened) {
      engine.close();
    }
    afterEngines();
  }

  /** Releases what the engines shared, once they are closed. */
  protected void afterEngines() {}

  protected static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> keys(StorageEngine.EngineIterator it) {
    List<String> keys = new ArrayList<>();
    try (it) {
      while (it.next()) {
        keys.add(new String(it.key(), StandardCharsets.UTF_8) + "="
            + new String(it.value(), StandardCharsets.UTF_8));
      }
    }
    return keys;
  }

  @Test
  void aBatchIsAppliedInOrderSoItsLastWriteOfAKeyWins() {
    StorageEngine engine = engine();
    engine.write(List.of(b("a"), b("b"), b("a"), b("b")),
        Arrays.asList(b("1"), b("2"), b("3"), null));
    assertThat(engine.get(b("a"))).isEqualTo(b("3"));
    assertThat(engine.get(b("b"))).isNull();
    assertThat(engine.get(b("never"))).isNull();
  }

  @Test
  void aDeleteHidesTheKeyFromReadsAndRanges() {
    StorageEngine engine = engine();
    engine.write(List.of(b("a"), b("b"), b("c")), List.of(b("1"), b("2"), b("3")));
    engine.write(List.of(b("b")), Arrays.asList((byte[]) null));
    assertThat(engine.get(b("b"))).isNull();
    assertThat(keys(engine.range(null, null))).containsExactly("a=1", "c=3");
  }

  @Test
  void rangesAreInUnsignedOrderFromInclusiveToExclusive() {
    StorageEngine engine = engine();
    byte[] high = {(byte) 0xC3, (byte) 0xA9}; // "é": above every ASCII key unsigned, below signed
    engine.write(List.of(b("b"), high, b("a"), b("c"), b("d")),
        List.of(b("2"), b("5"), b("1"), b("3"), b("4")));
    assertThat(keys(engine.range(null, null))).containsExactly("a=1", "b=2", "c=3", "d=4", "é=5");
    assertThat(keys(engine.range(b("b"), b("d")))).containsExactly("b=2", "c=3");
    assertThat(keys(engine.range(null, b("b")))).containsExactly("a=1");
    assertThat(keys(engine.range(b("d"), null))).containsExactly("d=4", "é=5");
    assertThat(keys(engine.range(b("x"), b("y")))).isEmpty();
  }

  @Test
  void randomBatchesAgreeWithASortedMap() {
    StorageEngine engine = engine();
    TreeMap<byte[], byte[]> reference = new TreeMap<>(Arrays::compareUnsigned);
    SplittableRandom random = new SplittableRandom(7);
    for (int batch = 0; batch < 50; batch++) {
      List<byte[]> keys = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        byte[] key = {(byte) random.nextInt(256), (byte) random.nextInt(4)};
        byte[] value = random.nextInt(5) == 0 ? null : b("v" + batch + "." + i);
        keys.add(key);
        values.add(value);
        if (value == null) {
          reference.remove(key);
        } else {
          reference.put(key, value);
        }
      }
      engine.write(keys, values);
    }
    List<String> expected = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : reference.entrySet()) {
      expected.add(Arrays.toString(e.getKey()) + "=" + new String(e.getValue(),
          StandardCharsets.UTF_8));
      assertThat(engine.get(e.getKey())).isEqualTo(e.getValue());
    }
    List<String> found = new ArrayList<>();
    try (StorageEngine.EngineIterator it = engine.range(null, null)) {
      while (it.next()) {
        found.add(Arrays.toString(it.key()) + "=" + new String(it.value(),
            StandardCharsets.UTF_8));
      }
    }
    assertThat(found).containsExactlyElementsOf(expected);
  }

  @Test
  void whatASyncMadeDurableIsThereAfterReopeningAPersistentEngine() {
    StorageEngine engine = open(dir);
    engine.write(List.of(b("a"), b("b")), List.of(b("1"), b("2")));
    engine.sync();
    boolean persistent = engine.persistent();
    engine.close();
    StorageEngine again = engine();
    if (persistent) {
      assertThat(keys(again.range(null, null))).containsExactly("a=1", "b=2");
    } else {
      assertThat(again.get(b("a"))).as("a memory engine starts empty").isNull();
    }
  }

  @Test
  void aSyncBesideWritesMakesDurableEveryWriteThatReturnedBeforeIt() throws Exception {
    StorageEngine engine = open(dir);
    if (!engine.persistent() || !engine.concurrentWrites()) {
      engine.close();
      assumeTrue(false, "only an engine with local files that takes writes from another thread");
    }
    int writes = 20_000;
    java.util.concurrent.atomic.AtomicReference<Throwable> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; i < writes; i++) {
          engine.write(List.of(b("k" + i)), List.of(b("v" + i)));
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    writer.start();
    int syncs = 0;
    while (writer.isAlive()) {
      engine.sync(); // beside the writes, as often as it can
      syncs++;
    }
    writer.join();
    assertThat(failure.get()).isNull();
    engine.sync(); // every write returned before this one began
    engine.close();
    StorageEngine again = engine();
    int found = 0;
    try (StorageEngine.EngineIterator it = again.range(null, null)) {
      while (it.next()) {
        found++;
      }
    }
    assertThat(found).as("writes found after %d syncs beside them and one after", syncs)
        .isEqualTo(writes);
  }

  private static StoreFlusher flusherFor(StorageEngine engine) {
    return engine.concurrentWrites() ? StoreFlusher.threaded("contract-store-flush")
        : StoreFlusher.inline();
  }

  private static CachedStore<String, Long> store(StorageEngine engine, int cacheSize,
      int writeBatch, StoreFlusher flusher) {
    StoreSpec spec = new StoreSpec("s", new MemoryEngine.Factory(), new StringSerde(),
        new LongSerde(), null, null, cacheSize, writeBatch, Map.of());
    return new CachedStore<>("s of the contract", spec, engine, null, flusher);
  }

  private static List<String> entries(KeyValueIterator<String, Long> it) {
    List<String> found = new ArrayList<>();
    try (it) {
      it.forEachRemaining(kv -> found.add(kv.key() + "=" + kv.value()));
    }
    return found;
  }

  @Test
  void aStoresRangesMergeDirtyPutsAndDeletesNotYetFlushedWithTheEngine() {
    StorageEngine engine = engine();
    try (StoreFlusher flusher = flusherFor(engine)) {
      CachedStore<String, Long> store = store(engine, 100, 100, flusher);
      for (String k : List.of("a", "b", "c", "d", "\u00e9")) {
        store.put(k, 1L);
      }
      assertThat(entries(store.all())).as("the first range: from the engine")
          .containsExactly("a=1", "b=1", "c=1", "d=1", "\u00e9=1");
      store.delete("b"); // dirty, not flushed: hides the engine's b
      store.put("c", 2L); // the cache's value wins over the engine's
      store.put("bb", 3L); // only in the cache
      store.put("\u00ea", 4L); // above every ASCII key, unsigned
      store.delete("zz"); // a delete of a key the engine never had

      assertThat(entries(store.all()))
          .containsExactly("a=1", "bb=3", "c=2", "d=1", "\u00e9=1", "\u00ea=4");
      assertThat(entries(store.range("b", "d"))).containsExactly("bb=3", "c=2");
      assertThat(entries(store.prefix("b"))).containsExactly("bb=3");
      assertThat(entries(store.range("e", "f"))).isEmpty();
      store.flush();
      flusher.drain();
      assertThat(entries(store.all())).as("the same once flushed")
          .containsExactly("a=1", "bb=3", "c=2", "d=1", "\u00e9=1", "\u00ea=4");
    }
  }

  /**
   * Random puts, deletes and ranges through a small cache and small batches against a sorted
   * map: the flusher's thread writes the batches to the engine while the ranges merge the cache
   * with it (on an engine that takes writes from one thread only, all of it on this one).
   */
  @Test
  @org.junit.jupiter.api.Timeout(120)
  void aStoresRangesAgreeWithASortedMapWhileTheFlusherWrites() {
    StorageEngine engine = engine();
    SplittableRandom random = new SplittableRandom(3);
    TreeMap<String, Long> reference = new TreeMap<>(
        (a, x) -> Arrays.compareUnsigned(b(a), b(x)));
    try (StoreFlusher flusher = flusherFor(engine)) {
      CachedStore<String, Long> store = store(engine, 16, 8, flusher);
      for (int op = 0; op < 40_000; op++) {
        String key = "k" + random.nextInt(200);
        int what = random.nextInt(10);
        if (what < 5) {
          long value = random.nextLong(1000);
          store.put(key, value);
          reference.put(key, value);
        } else if (what < 7) {
          store.delete(key);
          reference.remove(key);
        } else if (what < 9) {
          String to = "k" + random.nextInt(200);
          if (Arrays.compareUnsigned(b(key), b(to)) <= 0) {
            List<String> want = new ArrayList<>();
            reference.subMap(key, to).forEach((k, v) -> want.add(k + "=" + v));
            assertThat(entries(store.range(key, to))).as("op %d range [%s, %s)", op, key, to)
                .isEqualTo(want);
          }
        } else if (random.nextInt(20) == 0) {
          store.flush();
        }
      }
      List<String> want = new ArrayList<>();
      reference.forEach((k, v) -> want.add(k + "=" + v));
      assertThat(entries(store.all())).isEqualTo(want);
      store.flush();
      flusher.drain();
      assertThat(entries(store.all())).isEqualTo(want);
      for (String k : reference.keySet()) {
        assertThat(store.get(k)).isEqualTo(reference.get(k));
      }
    }
  }
}
