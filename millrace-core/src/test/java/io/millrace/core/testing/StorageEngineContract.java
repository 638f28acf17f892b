package io.millrace.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 * from another thread: a commit in the background syncs while the flusher writes).
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
}
