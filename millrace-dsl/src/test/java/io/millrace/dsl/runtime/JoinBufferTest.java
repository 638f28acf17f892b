package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.store.KeyValue;
import io.millrace.api.store.KeyValueIterator;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.serde.BytesSerde;
import io.millrace.core.store.CachedStore;
import io.millrace.core.store.MemoryEngine;
import io.millrace.core.store.StoreSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A join side's buffer in a real store: a key's lookup reads that key's records only, closing
 * reads the time index in time order, a buffer over a store with records (a restarted task)
 * indexes them, and all agree with a plain model on random records.
 */
class JoinBufferTest {
  /** A store that counts the entries its iterators hand out. */
  private static final class Counting implements KeyValueStore<byte[], byte[]> {
    final CachedStore<byte[], byte[]> store;
    long iterated;
    long reads;

    Counting(int cacheSize, int writeBatch) {
      StoreSpec spec = new StoreSpec("buffer", new MemoryEngine.Factory(), new BytesSerde(),
          new BytesSerde(), null, null, cacheSize, writeBatch, Map.of());
      store = new CachedStore<>("buffer", spec, new MemoryEngine(), null);
    }

    @Override
    public byte[] get(byte[] key) {
      reads++;
      return store.get(key);
    }

    @Override
    public void put(byte[] key, byte[] value) {
      store.put(key, value);
    }

    @Override
    public void putAll(List<KeyValue<byte[], byte[]>> entries) {
      store.putAll(entries);
    }

    @Override
    public void delete(byte[] key) {
      store.delete(key);
    }

    @Override
    public KeyValueIterator<byte[], byte[]> range(byte[] from, byte[] to) {
      return counted(store.range(from, to));
    }

    @Override
    public KeyValueIterator<byte[], byte[]> prefix(byte[] prefix) {
      return counted(store.prefix(prefix));
    }

    @Override
    public KeyValueIterator<byte[], byte[]> all() {
      return counted(store.all());
    }

    private KeyValueIterator<byte[], byte[]> counted(KeyValueIterator<byte[], byte[]> it) {
      return new KeyValueIterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public KeyValue<byte[], byte[]> next() {
          iterated++;
          return it.next();
        }

        @Override
        public void close() {
          it.close();
        }
      };
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> described(List<JoinBuffer.Entry> entries) {
    List<String> out = new ArrayList<>();
    for (JoinBuffer.Entry e : entries) {
      out.add(new String(e.recordKey(), StandardCharsets.UTF_8) + "@" + e.time() + "="
          + new String(e.value(), StandardCharsets.UTF_8) + (e.matched() ? "*" : ""));
    }
    return out;
  }

  @Test
  void aLookupReadsOnlyItsOwnKeysRecordsAndAKeyWithNoneReadsNothing() {
    Counting store = new Counting(10_000, 10_000);
    JoinBuffer buffer = new JoinBuffer(store);
    for (int t = 0; t < 100; t++) {
      for (int k = 0; k < 50; k++) {
        buffer.add(t * 10L, b("key" + k), b("v" + t), false);
      }
    }
    store.store.flush(); // in the engine, and one more record in the cache
    buffer.add(1_000, b("key7"), b("last"), false);

    store.iterated = 0;
    store.reads = 0;
    List<JoinBuffer.Entry> found = buffer.find(200, 400, b("key7"));
    assertThat(found).hasSize(21);
    assertThat(store.reads + store.iterated)
        .as("entries read for 21 records of one key among 50 keys").isEqualTo(21);
    store.reads = 0;
    store.iterated = 0;
    assertThat(buffer.find(0, 2_000, b("key77"))).isEmpty();
    assertThat(store.reads + store.iterated).as("entries read for a key with no records")
        .isZero();
    store.reads = 0;
    buffer.add(1_010, b("key8"), b("first at 1010"), false);
    assertThat(store.reads).as("reads for the first record of its time and key").isZero();
    assertThat(described(buffer.find(990, Long.MAX_VALUE, b("key7"))))
        .containsExactly("key7@990=v99", "key7@1000=last");
  }

  @Test
  void aKeyThatStartsWithAnotherKeyIsNotFoundForItAndNegativeTimesSortFirst() {
    JoinBuffer buffer = new JoinBuffer(new Counting(100, 100));
    buffer.add(5, b("a"), b("1"), false);
    buffer.add(-5, b("a"), b("0"), true);
    buffer.add(5, b("ab"), b("2"), false);
    buffer.add(5, b("a\u00ff"), b("3"), false);
    buffer.add(5, b("a"), b("4"), false); // a second record at the same time and key

    assertThat(described(buffer.find(Long.MIN_VALUE, Long.MAX_VALUE, b("a"))))
        .containsExactly("a@-5=0*", "a@5=1", "a@5=4");
    assertThat(described(buffer.find(0, 5, b("ab")))).containsExactly("ab@5=2");
    assertThat(described(buffer.find(6, 100, b("a")))).isEmpty();
  }

  @Test
  void closingReadsRecordsInTimeOrderAcrossKeysThenRemovesOnlyThose() {
    Counting store = new Counting(100, 3);
    JoinBuffer buffer = new JoinBuffer(store);
    buffer.add(30, b("b"), b("b30"), false);
    buffer.add(10, b("c"), b("c10"), false);
    buffer.add(20, b("a"), b("a20"), false);
    buffer.add(10, b("a"), b("a10"), false);
    buffer.add(40, b("a"), b("a40"), false);
    buffer.markMatched(buffer.find(20, 20, b("a")));

    assertThat(described(buffer.between(Long.MIN_VALUE, 40)))
        .containsExactly("a@10=a10", "c@10=c10", "a@20=a20*", "b@30=b30");
    assertThat(described(buffer.between(20, 40))).containsExactly("a@20=a20*", "b@30=b30");
    buffer.removeBetween(30, 30); // an empty span: nothing
    buffer.removeBetween(Long.MIN_VALUE, Long.MIN_VALUE);
    assertThat(buffer.between(Long.MIN_VALUE, Long.MAX_VALUE)).hasSize(5);
    buffer.removeBetween(Long.MIN_VALUE, 30);
    assertThat(described(buffer.between(Long.MIN_VALUE, Long.MAX_VALUE)))
        .containsExactly("b@30=b30", "a@40=a40");
    assertThat(described(buffer.find(0, 100, b("a")))).containsExactly("a@40=a40");
    buffer.removeBetween(Long.MIN_VALUE, Long.MAX_VALUE);
    try (KeyValueIterator<byte[], byte[]> left = store.all()) {
      assertThat(left.hasNext()).as("no record left").isFalse();
    }
  }

  @Test
  void aBufferOverAStoreWithRecordsFindsThemByTimeAndDeletesAnIndexTheStoreStillHeld() {
    Counting store = new Counting(4, 2); // most entries in the engine, a few in the cache
    JoinBuffer before = new JoinBuffer(store);
    before.add(30, b("b"), b("b30"), true);
    before.add(10, b("c"), b("c10"), false);
    before.add(10, b("a"), b("a10"), false);
    before.add(10, b("a"), b("a10bis"), false);
    store.put(new byte[0], b("progress"));
    byte[] oldIndex = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0, 0, 0, 0,
        10, 'a'}; // an entry of the time index as the store kept it before
    store.put(oldIndex, new byte[0]);

    JoinBuffer restarted = new JoinBuffer(store); // a task started again over the same store
    assertThat(described(restarted.between(Long.MIN_VALUE, Long.MAX_VALUE)))
        .containsExactly("a@10=a10", "a@10=a10bis", "c@10=c10", "b@30=b30*");
    assertThat(store.get(oldIndex)).as("the old index entry deleted").isNull();
    assertThat(store.get(new byte[0])).as("the progress kept").isEqualTo(b("progress"));
    restarted.removeBetween(Long.MIN_VALUE, 20);
    assertThat(described(new JoinBuffer(store).between(Long.MIN_VALUE, Long.MAX_VALUE)))
        .containsExactly("b@30=b30*");
  }

  @Test
  void randomRecordsAgreeWithAModelOfTimesPerKey() {
    SplittableRandom random = new SplittableRandom(11);
    Counting store = new Counting(1 + random.nextInt(20), 1 + random.nextInt(20));
    JoinBuffer buffer = new JoinBuffer(store);
    TreeMap<Long, List<String>> model = new TreeMap<>(); // time -> "key@time=value", in order
    long removedBefore = Long.MIN_VALUE;
    for (int i = 0; i < 3_000; i++) {
      long time = removedBefore == Long.MIN_VALUE ? random.nextLong(-500, 500)
          : removedBefore + random.nextLong(0, 500);
      String key = "k" + random.nextInt(12) + (random.nextBoolean() ? "" : "x");
      String value = "v" + i;
      buffer.add(time, b(key), b(value), false);
      model.computeIfAbsent(time, t -> new ArrayList<>()).add(key + "@" + time + "=" + value);
      if (random.nextInt(10) == 0) {
        long from = time - random.nextLong(200);
        List<String> expected = new ArrayList<>();
        model.subMap(from, true, time, true).values().forEach(records -> records.stream()
            .filter(r -> r.startsWith(key + "@")).forEach(expected::add));
        assertThat(described(buffer.find(from, time, b(key)))).as("find %s at %d", key, i)
            .containsExactlyInAnyOrderElementsOf(expected);
      }
      if (random.nextInt(100) == 0) {
        removedBefore = time;
        buffer.removeBetween(Long.MIN_VALUE, time);
        model.headMap(time).clear();
      }
    }
    List<String> expected = new ArrayList<>();
    model.values().forEach(expected::addAll);
    assertThat(described(buffer.between(Long.MIN_VALUE, Long.MAX_VALUE)))
        .containsExactlyInAnyOrderElementsOf(expected);
  }
}
