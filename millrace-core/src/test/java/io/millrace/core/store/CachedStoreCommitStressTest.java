package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.serde.LongSerde;
import io.millrace.core.serde.StringSerde;
import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.spi.engine.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store under exactly-once, as the commit protocol drives it when the transaction commits
 * beside the loop ({@code Committer}'s write off the loop): the loop reads, writes, ranges and
 * evicts through a small cache while the flusher's thread stages its flushes and a commit thread
 * seals, commits and applies them. Every read and range agrees with a plain map, and each commit
 * leaves the engine underneath holding exactly the state as of its hand-over: nothing written
 * after the commit's offsets were taken, nothing before it missing. A miss reads the engine
 * underneath directly (the cache keeps what a commit has not applied yet), with and without
 * ranges (which index the staged writes from the first one on).
 */
class CachedStoreCommitStressTest {

  @Test
  @Timeout(300)
  void readsAgreeWithAReferenceAndEachCommitAppliesExactlyTheStateAtItsHandOver()
      throws Exception {
    for (long seed = 1; seed <= 40; seed++) {
      run(seed, true);
    }
  }

  @Test
  @Timeout(300)
  void readsOfAStoreThatNeverRangesAgreeWhileItsStagedWritesAreNeverIndexed() throws Exception {
    for (long seed = 41; seed <= 80; seed++) {
      run(seed, false);
    }
  }

  private static void run(long seed, boolean ranges) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    int keys = 20 + random.nextInt(200);
    StoreSpec spec = new StoreSpec("s", new MemoryEngine.Factory(), new StringSerde(),
        new LongSerde(), null, null, 1 + random.nextInt(60), 1 + random.nextInt(60), Map.of());
    MemoryEngine committed = new MemoryEngine();
    StagedEngine staged = new StagedEngine(committed);
    ExecutorService commitThread = Executors.newSingleThreadExecutor();
    try (StoreFlusher flusher = StoreFlusher.threaded("stress-store-flush")) {
      CachedStore<String, Long> store = new CachedStore<>("s", spec, staged, null, flusher);
      TreeMap<String, Long> reference = new TreeMap<>(
          (a, b) -> Arrays.compareUnsigned(bytes(a), bytes(b)));
      CompletableFuture<Void> commit = CompletableFuture.completedFuture(null);
      int commits = 0;
      for (int op = 0; op < 20_000; op++) {
        String key = "k" + random.nextInt(keys);
        int kind = random.nextInt(10);
        switch (kind) {
          case 0, 1, 2, 3 -> {
            long value = random.nextLong(1000);
            store.put(key, value);
            reference.put(key, value);
          }
          case 4 -> {
            store.delete(key);
            reference.remove(key);
          }
          case 5, 6 -> assertThat(store.get(key)).as("seed %d op %d get %s", seed, op, key)
              .isEqualTo(reference.get(key));
          case 7 -> {
            if (!ranges) {
              assertThat(store.get(key)).as("seed %d op %d get %s", seed, op, key)
                  .isEqualTo(reference.get(key));
              continue;
            }
            String to = "k" + random.nextInt(keys);
            if (Arrays.compareUnsigned(bytes(key), bytes(to)) <= 0) {
              List<KeyValue<String, Long>> got = new ArrayList<>();
              try (KeyValueIterator<String, Long> it = store.range(key, to)) {
                it.forEachRemaining(got::add);
              }
              List<KeyValue<String, Long>> want = new ArrayList<>();
              reference.subMap(key, to).forEach((k, v) -> want.add(new KeyValue<>(k, v)));
              assertThat(got).as("seed %d op %d range [%s, %s)", seed, op, key, to)
                  .isEqualTo(want);
            }
          }
          case 8 -> {
            if (random.nextInt(20) == 0) {
              store.flush();
            }
          }
          default -> {
            if (random.nextInt(30) == 0) {
              commit.join(); // one commit at a time; rethrows the last one's failed check
              commit = commitBesideTheLoop(store, staged, committed, flusher, commitThread,
                  new TreeMap<>(reference), seed, commits++);
            }
          }
        }
      }
      commit.join();
      assertThat(commits).as("seed %d: commits", seed).isGreaterThan(10);
      assertThat(staged.appliedThrough()).as("seed %d: commits told the store what they applied",
          seed).isPositive();
    } finally {
      commitThread.shutdownNow();
    }
  }

  /**
   * On the loop: the store's dirty entries handed over, the flusher parked after them (the
   * offsets would be taken here). On the commit thread: the flusher's work waited for, the
   * staged writes sealed, the transaction committed (nothing to do here), the flusher let go, the
   * sealed writes applied; then the engine underneath must hold exactly {@code expected}.
   */
  private static CompletableFuture<Void> commitBesideTheLoop(CachedStore<String, Long> store,
      StagedEngine staged, MemoryEngine committed, StoreFlusher flusher,
      ExecutorService commitThread, TreeMap<String, Long> expected, long seed, int number) {
    StoreFlusher.Flush flush = store.serializeDirty();
    if (flush != null) {
      long sequence = flusher.handOver(List.of(flush));
      store.flushed(flusher.defersWrites(staged) ? sequence : 0);
    }
    long handed = flusher.handed();
    flusher.parkAfterHanded();
    return CompletableFuture.runAsync(() -> {
      try {
        flusher.await(handed);
        staged.seal(flusher.finishedSoFar()); // parked after the handed batches: exactly those
      } finally {
        flusher.unpark();
      }
      staged.applySealed();
      assertThat(contents(committed)).as("seed %d commit %d: the engine underneath", seed, number)
          .isEqualTo(expected);
    }, commitThread);
  }

  private static TreeMap<String, Long> contents(MemoryEngine engine) {
    TreeMap<String, Long> contents = new TreeMap<>(
        (a, b) -> Arrays.compareUnsigned(bytes(a), bytes(b)));
    StringSerde keys = new StringSerde();
    LongSerde values = new LongSerde();
    try (StorageEngine.EngineIterator it = engine.range(null, null)) {
      while (it.next()) {
        contents.put(keys.fromBytes(it.key()), values.fromBytes(it.value()));
      }
    }
    return contents;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
