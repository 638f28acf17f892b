package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The cache's hash map with LRU links, against an access-ordered LinkedHashMap. */
class CacheMapTest {
  private static List<String> eldestFirst(CacheMap<String> map) {
    List<String> keys = new ArrayList<>();
    for (int s = map.eldest(); s != CacheMap.NONE; s = map.newerThan(s)) {
      keys.add(map.key(s));
    }
    return keys;
  }

  @Test
  void randomGetsAddsAndRemovalsKeepTheSameEntriesInTheSameUseOrderAsALinkedHashMap() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      CacheMap<String> map = new CacheMap<>(1 + random.nextInt(20)); // grows past it: resizes
      // key -> the value it was added with; the map's value at the key's slot must match it
      LinkedHashMap<String, Integer> reference = new LinkedHashMap<>(16, 0.75f, true);
      for (int op = 0; op < 5_000; op++) {
        String key = "k" + random.nextInt(300);
        int hash = CacheMap.hash(key);
        switch (random.nextInt(4)) {
          case 0, 1 -> {
            int s = map.get(key, hash);
            Integer expected = reference.get(key);
            assertThat(s == CacheMap.NONE ? null : map.value(s)).as("seed %d op %d", seed, op)
                .isEqualTo(expected);
            if (s != CacheMap.NONE) {
              assertThat(map.key(s)).isEqualTo(key);
            }
          }
          case 2 -> {
            if (map.get(key, hash) == CacheMap.NONE) {
              int s = map.add(key, hash, op);
              assertThat(map.dirty(s)).isFalse();
              assertThat(map.flushedIn(s)).isZero();
              reference.put(key, op);
            } else {
              reference.get(key);
            }
          }
          default -> {
            int s = random.nextBoolean() ? map.eldest() : map.get(key, hash);
            if (s != CacheMap.NONE) {
              String removed = map.key(s);
              reference.get(removed); // the reference saw the same use before the removal
              map.dirty(s, true); // a reused slot must come back clean
              map.flushedIn(s, 9);
              map.remove(s);
              assertThat(map.key(s)).as("a removed slot holds no key").isNull();
              assertThat(map.value(s)).as("a removed slot holds no value").isNull();
              reference.remove(removed);
            }
          }
        }
        assertThat(map.size()).isEqualTo(reference.size());
      }
      assertThat(eldestFirst(map)).as("seed %d", seed)
          .isEqualTo(new ArrayList<>(reference.keySet()));
    }
  }

  @Test
  void byteArrayKeysAreFoundByContentAndOtherKeysByEquals() {
    CacheMap<Object> map = new CacheMap<>(4);
    byte[] key = {1, 2, 3};
    map.add(key, CacheMap.hash(key), "bytes");
    map.add(7L, CacheMap.hash(7L), "long");

    byte[] equalKey = {1, 2, 3};
    assertThat(map.value(map.get(equalKey, CacheMap.hash(equalKey)))).isEqualTo("bytes");
    assertThat(map.value(map.get(Long.valueOf(7), CacheMap.hash(7L)))).isEqualTo("long");
    byte[] otherKey = {1, 2, 4};
    assertThat(map.get(otherKey, CacheMap.hash(otherKey))).isEqualTo(CacheMap.NONE);
    assertThat(map.key(map.eldest())).as("the last get made the long key the newest")
        .isSameAs(key);
  }

  @Test
  void keysWhoseHashesCollideAreKeptApart() {
    // "Aa" and "BB" have the same String hash code.
    CacheMap<String> map = new CacheMap<>(4);
    int aa = map.add("Aa", CacheMap.hash("Aa"), 1);
    int bb = map.add("BB", CacheMap.hash("BB"), 2);
    assertThat(map.get("Aa", CacheMap.hash("Aa"))).isEqualTo(aa);
    map.remove(aa);
    assertThat(map.get("Aa", CacheMap.hash("Aa"))).isEqualTo(CacheMap.NONE);
    assertThat(map.get("BB", CacheMap.hash("BB"))).isEqualTo(bb);
    assertThat(map.size()).isEqualTo(1);
  }

  @Test
  void everySlotKeepsItsKeyValueAndFlushStateWhenTheTableGrows() {
    CacheMap<String> map = new CacheMap<>(1);
    int[] slots = new int[1_000];
    for (int k = 0; k < slots.length; k++) {
      slots[k] = map.add("k" + k, CacheMap.hash("k" + k), k);
      map.dirty(slots[k], k % 3 == 0);
      map.flushedIn(slots[k], k);
    }
    assertThat(eldestFirst(map)).as("the use order, kept through each growth").hasSize(1_000)
        .startsWith("k0", "k1").endsWith("k998", "k999");
    for (int k = slots.length - 1; k >= 0; k--) {
      assertThat(map.get("k" + k, CacheMap.hash("k" + k))).isEqualTo(slots[k]);
      assertThat(map.value(slots[k])).isEqualTo(k);
      assertThat(map.dirty(slots[k])).isEqualTo(k % 3 == 0);
      assertThat(map.flushedIn(slots[k])).isEqualTo(k);
    }
    assertThat(eldestFirst(map)).as("each get made its key the newest").hasSize(1_000)
        .startsWith("k999", "k998").endsWith("k1", "k0");
  }

  @Test
  void aRemovedSlotIsReusedInsteadOfGrowing() {
    CacheMap<String> map = new CacheMap<>(16);
    int first = map.add("a", CacheMap.hash("a"), 1);
    map.remove(first);
    assertThat(map.add("b", CacheMap.hash("b"), 2)).isEqualTo(first);
    assertThat(map.get("a", CacheMap.hash("a"))).isEqualTo(CacheMap.NONE);
    assertThat(map.value(map.get("b", CacheMap.hash("b")))).isEqualTo(2);
  }
}
