package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One commit interval's staged writes: found by their bytes, the last write of a key winning, and
 * in key order from the first range on, without missing a write staged beside that range.
 */
class StagedWritesTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] get(StagedWrites writes, byte[] key) {
    return writes.get(new StagedWrites.Key(key));
  }

  @Test
  void aReadFindsTheLastWriteOfAKeyByItsBytes() {
    StagedWrites writes = new StagedWrites(false);
    writes.putAll(List.of(b("a"), b("b")), List.of(b("1"), b("2")));
    writes.putAll(List.of(b("a"), b("b")), Arrays.asList(b("3"), null));

    assertThat(get(writes, b("a"))).as("another array with the same bytes").isEqualTo(b("3"));
    assertThat(get(writes, b("b"))).isSameAs(StagedWrites.DELETED);
    assertThat(get(writes, b("c"))).isNull();
    assertThat(writes.size()).isEqualTo(2);
  }

  @Test
  void theSortedViewHoldsTheWritesBeforeAndAfterItWasMadeInUnsignedOrder() {
    StagedWrites writes = new StagedWrites(false);
    byte[] high = {(byte) 0xF0};
    writes.putAll(List.of(high, b("b")), List.of(b("1"), b("2")));
    var sorted = writes.sorted();
    writes.putAll(List.of(b("a")), Arrays.asList((byte[]) null));

    List<String> keys = new ArrayList<>();
    sorted.keySet().forEach(k -> keys.add(Arrays.toString(k)));
    assertThat(keys).as("0xF0 after the letters: unsigned")
        .containsExactly(Arrays.toString(b("a")), Arrays.toString(b("b")), Arrays.toString(high));
    assertThat(sorted.get(b("a"))).isSameAs(StagedWrites.DELETED);
    assertThat(new StagedWrites(true).sorted()).as("kept in order from the first write").isEmpty();
  }

  @Test
  void aBatchToApplyIsInUnsignedKeyOrder() {
    StagedWrites writes = new StagedWrites(false, 4);
    byte[] high = {(byte) 0xF0};
    writes.putAll(List.of(b("c"), high, b("a"), b("b")), Arrays.asList(b("3"), b("9"), null, b("2")));

    StagedWrites.Batch batch = writes.batch();
    assertThat(batch.keys()).containsExactly(b("a"), b("b"), b("c"), high);
    assertThat(batch.engineValues()).containsExactly(null, b("2"), b("3"), b("9"));
  }

  @Test
  void removingWhatWasAppliedKeepsAWriteStagedSince() {
    StagedWrites writes = new StagedWrites(true);
    writes.putAll(List.of(b("a"), b("b")), List.of(b("1"), b("2")));
    StagedWrites.Batch applied = writes.batch();
    writes.putAll(List.of(b("b")), List.of(b("3"))); // staged while the batch was applied

    writes.removeIfSame(applied.keys(), applied.values());
    assertThat(get(writes, b("a"))).isNull();
    assertThat(get(writes, b("b"))).isEqualTo(b("3"));
    assertThat(writes.sorted()).containsOnlyKeys(b("b"));
    assertThat(applied.engineValues()).containsExactlyInAnyOrder(b("1"), b("2"));
  }

  /**
   * Stress: one thread stages batches (as the store flusher does) while another reads and ranges
   * (as the loop does), its first range making the sorted copy in the middle of the writes. Every
   * write the reader knows to be done is found by a read and by a range, and once the writer is
   * done the sorted copy holds exactly what a plain model of the writes holds.
   */
  @Test
  void aRangeMadeWhileAnotherThreadStagesMissesNoWrite() throws Exception {
    int keys = 3_000;
    int batches = 400;
    for (int attempt = 0; attempt < 20; attempt++) {
      StagedWrites writes = new StagedWrites(false);
      AtomicInteger done = new AtomicInteger(-1); // the last batch staged whole
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread stager = new Thread(() -> {
        try {
          for (int batch = 0; batch < batches; batch++) {
            writes.putAll(batchKeys(batch, keys), batchValues(batch, keys));
            done.set(batch);
          }
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      stager.start();
      do { // the first pass that finds a batch done makes the sorted copy, mid-writes
        int through = done.get();
        if (through < 0) {
          continue;
        }
        var sorted = writes.sorted();
        for (byte[] key : batchKeys(through, keys)) {
          // A later batch may have written the key again: its batch number is never older.
          assertThat(batchOf(get(writes, key))).as("read of a key of batch %s", through)
              .isGreaterThanOrEqualTo(through);
          assertThat(batchOf(sorted.get(key))).as("range of a key of batch %s", through)
              .isGreaterThanOrEqualTo(through);
        }
      } while (stager.isAlive());
      stager.join();
      assertThat(failure.get()).isNull();

      Map<String, String> model = new TreeMap<>();
      for (int batch = 0; batch < batches; batch++) {
        List<byte[]> ks = batchKeys(batch, keys);
        List<byte[]> vs = batchValues(batch, keys);
        for (int i = 0; i < ks.size(); i++) {
          model.put(new String(ks.get(i), StandardCharsets.UTF_8),
              new String(vs.get(i), StandardCharsets.UTF_8));
        }
      }
      Map<String, String> found = new TreeMap<>();
      writes.sorted().forEach((k, v) -> found.put(new String(k, StandardCharsets.UTF_8),
          new String(v, StandardCharsets.UTF_8)));
      assertThat(found).as("attempt %s", attempt).isEqualTo(model);
      assertThat(writes.size()).isEqualTo(model.size());
    }
  }

  private static List<byte[]> batchKeys(int batch, int keys) {
    List<byte[]> out = new ArrayList<>();
    for (int j = 0; j < 16; j++) {
      out.add(b(String.format("%06d", (batch * 37 + j * 191) % keys)));
    }
    return out;
  }

  private static List<byte[]> batchValues(int batch, int keys) {
    List<byte[]> out = new ArrayList<>();
    for (int j = 0; j < 16; j++) {
      out.add(b(batch + ":" + j));
    }
    return out;
  }

  private static int batchOf(byte[] value) {
    assertThat(value).as("a value staged").isNotNull();
    String s = new String(value, StandardCharsets.UTF_8);
    return Integer.parseInt(s.substring(0, s.indexOf(':')));
  }
}
