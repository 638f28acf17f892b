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
    for (CacheMap.Entry<String> e = map.eldest(); e != null; e = map.newerThan(e)) {
      keys.add(e.key);
    }
    return keys;
  }

  @Test
  void randomGetsAddsAndRemovalsKeepTheSameEntriesInTheSameUseOrderAsALinkedHashMap() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      CacheMap<String> map = new CacheMap<>(1 + random.nextInt(20)); // grows past it: resizes
      LinkedHashMap<String, CacheMap.Entry<String>> reference = new LinkedHashMap<>(16, 0.75f,
          true);
      for (int op = 0; op < 5_000; op++) {
        String key = "k" + random.nextInt(300);
        int hash = CacheMap.hash(key);
        switch (random.nextInt(4)) {
          case 0, 1 -> assertThat(map.get(key, hash)).as("seed %d op %d", seed, op)
              .isSameAs(reference.get(key));
          case 2 -> {
            if (map.get(key, hash) == null) {
              CacheMap.Entry<String> e = new CacheMap.Entry<>(key, hash, op);
              map.add(e);
              reference.put(key, e);
            } else {
              reference.get(key);
            }
          }
          default -> {
            CacheMap.Entry<String> e = random.nextBoolean() ? map.eldest() : map.get(key, hash);
            if (e != null) {
              reference.get(e.key); // the reference saw the same use before the removal
              map.remove(e);
              reference.remove(e.key);
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
    map.add(new CacheMap.Entry<>(key, CacheMap.hash(key), "bytes"));
    map.add(new CacheMap.Entry<>(7L, CacheMap.hash(7L), "long"));

    byte[] equalKey = {1, 2, 3};
    assertThat(map.get(equalKey, CacheMap.hash(equalKey)).value).isEqualTo("bytes");
    assertThat(map.get(Long.valueOf(7), CacheMap.hash(7L)).value).isEqualTo("long");
    byte[] otherKey = {1, 2, 4};
    assertThat(map.get(otherKey, CacheMap.hash(otherKey))).isNull();
    assertThat(map.eldest().key).as("the last get made the long key the newest")
        .isSameAs(key);
  }

  @Test
  void keysWhoseHashesCollideAreKeptApart() {
    // "Aa" and "BB" have the same String hash code.
    CacheMap<String> map = new CacheMap<>(4);
    CacheMap.Entry<String> aa = new CacheMap.Entry<>("Aa", CacheMap.hash("Aa"), 1);
    CacheMap.Entry<String> bb = new CacheMap.Entry<>("BB", CacheMap.hash("BB"), 2);
    map.add(aa);
    map.add(bb);
    assertThat(map.get("Aa", CacheMap.hash("Aa"))).isSameAs(aa);
    map.remove(aa);
    assertThat(map.get("Aa", CacheMap.hash("Aa"))).isNull();
    assertThat(map.get("BB", CacheMap.hash("BB"))).isSameAs(bb);
    assertThat(map.size()).isEqualTo(1);
  }
}
