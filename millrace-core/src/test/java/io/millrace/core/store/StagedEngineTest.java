package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.spi.engine.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once's staging engine: the engine underneath gets a write only once a commit sealed it
 * and its transaction committed (a sync, or applying the sealed writes), reads see the staged
 * writes over the sealed ones over the engine's, and what is never applied is dropped.
 */
class StagedEngineTest {
  private final MemoryEngine engine = new MemoryEngine();
  private final StagedEngine staged = new StagedEngine(engine);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> entries(StorageEngine e) {
    List<String> found = new ArrayList<>();
    try (StorageEngine.EngineIterator it = e.range(null, null)) {
      while (it.next()) {
        found.add(new String(it.key(), StandardCharsets.UTF_8) + "="
            + new String(it.value(), StandardCharsets.UTF_8));
      }
    }
    return found;
  }

  @Test
  void writesReachTheEngineUnderneathOnlyOnceSealedAndApplied() {
    staged.write(List.of(b("a"), b("b")), List.of(b("1"), b("2")));
    assertThat(staged.get(b("a"))).isEqualTo(b("1"));
    assertThat(engine.get(b("a"))).as("not committed yet").isNull();
    assertThat(staged.stagedCount()).isEqualTo(2);

    staged.seal();
    assertThat(staged.stagedCount()).isZero();
    assertThat(staged.sealedCount()).isEqualTo(2);
    assertThat(engine.get(b("a"))).as("sealed, its transaction not committed yet").isNull();
    staged.applySealed();
    assertThat(entries(engine)).containsExactly("a=1", "b=2");
    assertThat(staged.sealedCount()).isZero();
  }

  @Test
  void aSyncAppliesEverythingWrittenBeforeItAsTheEngineContractSays() {
    staged.write(List.of(b("a")), List.of(b("1")));
    staged.seal();
    staged.write(List.of(b("b")), List.of(b("2")));
    staged.sync();
    assertThat(entries(engine)).containsExactly("a=1", "b=2");
    assertThat(staged.stagedCount() + staged.sealedCount()).isZero();
  }

  @Test
  void writesStagedAfterTheSealWaitForTheNextCommit() {
    staged.write(List.of(b("a"), b("b")), List.of(b("1"), b("2")));
    staged.seal(); // the transaction holding a=1, b=2 commits now
    staged.write(List.of(b("b"), b("c")), Arrays.asList(null, b("3"))); // the next one's

    assertThat(entries(staged)).as("staged over sealed over the engine")
        .containsExactly("a=1", "c=3");
    staged.applySealed();
    assertThat(entries(engine)).containsExactly("a=1", "b=2");
    assertThat(entries(staged)).containsExactly("a=1", "c=3");
    assertThat(staged.get(b("b"))).isNull();

    staged.seal();
    staged.applySealed();
    assertThat(entries(engine)).containsExactly("a=1", "c=3");
  }

  @Test
  void aSealBeforeTheLastSealedWritesWereAppliedIsRefused() {
    staged.write(List.of(b("a")), List.of(b("1")));
    staged.seal();
    staged.write(List.of(b("b")), List.of(b("2")));
    org.assertj.core.api.Assertions.assertThatThrownBy(staged::seal)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not applied");
  }

  @Test
  void stagedWritesAndDeletesHideTheEnginesEntriesInReadsAndRanges() {
    engine.write(List.of(b("a"), b("b"), b("c")), List.of(b("1"), b("2"), b("3")));
    staged.write(List.of(b("b"), b("a"), b("d"), b("0")),
        Arrays.asList(null, b("9"), b("4"), b("0")));
    assertThat(staged.get(b("b"))).isNull();
    assertThat(staged.get(b("a"))).isEqualTo(b("9"));
    assertThat(entries(staged)).containsExactly("0=0", "a=9", "c=3", "d=4");
    assertThat(entries(engine)).as("the engine still holds the last commit")
        .containsExactly("a=1", "b=2", "c=3");

    staged.seal();
    assertThat(entries(staged)).as("the same, sealed").containsExactly("0=0", "a=9", "c=3", "d=4");
    assertThat(staged.get(b("b"))).isNull();
    staged.sync();
    assertThat(entries(engine)).containsExactly("0=0", "a=9", "c=3", "d=4");
  }

  @Test
  void closingWithoutASyncDropsTheStagedWrites() {
    List<List<byte[]>> applied = new ArrayList<>();
    StagedEngine watched = new StagedEngine(new WatchedEngine() {
      @Override
      public void write(List<byte[]> keys, List<byte[]> values) {
        applied.add(keys);
        super.write(keys, values);
      }
    });
    watched.write(List.of(b("x")), List.of(b("1")));
    watched.seal();
    watched.write(List.of(b("y")), List.of(b("2")));
    watched.close();
    assertThat(applied).as("an aborted commit's writes never reach the engine").isEmpty();
  }

  /**
   * The container's flushing thread stages while the loop thread reads: every read finds a key
   * absent or with the value staged for it, and every range is in order without repeats.
   */
  @Test
  void stagingOnOneThreadWhileAnotherReadsSeesWholeWrites() throws Exception {
    int keys = 20_000;
    for (int i = 0; i < keys; i += 2) {
      engine.write(List.of(key(i)), List.of(b("old")));
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread stager = new Thread(() -> {
      try {
        for (int i = 0; i < keys; i += 10) {
          List<byte[]> ks = new ArrayList<>();
          List<byte[]> vs = new ArrayList<>();
          for (int j = i; j < i + 10; j++) {
            ks.add(key(j));
            vs.add(j % 3 == 0 ? null : key(j));
          }
          staged.write(ks, vs);
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    stager.start();
    int reads = 0;
    while (stager.isAlive() || reads < 1000) {
      int i = reads++ * 7919 % keys;
      byte[] value = staged.get(key(i));
      if (value != null && !Arrays.equals(value, b("old"))) {
        assertThat(value).isEqualTo(key(i));
      }
      if (reads % 200 == 0) {
        byte[] previous = null;
        try (StorageEngine.EngineIterator it = staged.range(key(1000), key(3000))) {
          while (it.next()) {
            if (previous != null) {
              assertThat(Arrays.compareUnsigned(previous, it.key())).isNegative();
            }
            previous = it.key();
          }
        }
      }
    }
    stager.join();
    assertThat(failure.get()).isNull();
    staged.seal();
    staged.sync();
    for (int i = 0; i < keys; i++) {
      assertThat(engine.get(key(i))).as("key %s", i).isEqualTo(i % 3 == 0 ? null : key(i));
    }
  }

  /**
   * A commit's thread applies the sealed writes while the loop reads them and the flusher stages
   * the next commit's: no read ever finds a key without the value of the last commit or a later
   * one (no moment where neither the sealed writes nor the engine hold it).
   */
  @Test
  void applyingOnOneThreadWhileAnotherReadsAndAThirdStagesNeverShowsAnOlderValue()
      throws Exception {
    int keys = 2_000;
    for (int round = 1; round <= 30; round++) {
      byte[] value = b("v" + round);
      List<byte[]> ks = new ArrayList<>();
      List<byte[]> vs = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        ks.add(key(i));
        vs.add(value);
      }
      staged.write(ks, vs);
      staged.seal(); // round's transaction commits
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread applier = new Thread(() -> {
        try {
          staged.applySealed();
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      byte[] next = b("v" + (round + 1));
      Thread stager = new Thread(() -> {
        try {
          for (int i = 0; i < keys; i += 100) {
            staged.write(List.of(key(i)), List.of(next)); // the next commit's, staged meanwhile
          }
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      applier.start();
      stager.start();
      do {
        for (int i = 0; i < keys; i += 7) {
          byte[] read = staged.get(key(i));
          if (!Arrays.equals(read, value)) {
            assertThat(read).as("key %s in round %s", i, round).isEqualTo(next);
          }
        }
      } while (applier.isAlive() || stager.isAlive());
      applier.join();
      stager.join();
      assertThat(failure.get()).isNull();
      assertThat(engine.get(key(1))).isEqualTo(value);
      staged.seal();
      staged.applySealed(); // the next round starts with nothing sealed
    }
  }

  private static byte[] key(int i) {
    return String.format("%08d", i).getBytes(StandardCharsets.UTF_8);
  }
}
