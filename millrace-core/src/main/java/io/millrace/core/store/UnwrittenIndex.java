package io.millrace.core.store;

import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link CachedStore}'s entries the engine may not hold yet (dirty, or in a flush the flusher
 * has not written), by serialized key in the store's byte order, to their cache slots: what an
 * iterator merges over the engine's range. Kept only once the store is first iterated.
 *
 * <p>Sorted lazily: {@link #remember} only lists a slot, and {@link #sortRemembered} (the next
 * iterator) sorts the listed ones into the map. A put into the sorted map per write took 6.5% of
 * a windowed count's samples, for entries the flusher wrote before any range looked at them.
 *
 * <p>Loop thread only.
 */
final class UnwrittenIndex {
  private final TreeMap<byte[], Integer> sortedKeys = new TreeMap<>(Arrays::compareUnsigned);
  /** A slot's serialized key while the engine may not hold its entry, else null. */
  private byte[][] serialized = new byte[64][];
  /**
   * Whether a slot is in {@link #sortedKeys}. A slot with a serialized key that is not is listed
   * in {@link #unsorted}, for the next iterator to sort in.
   */
  private boolean[] sorted = new boolean[64];
  /**
   * Slots remembered since the last iterator opened. May hold slots since forgotten (no serialized
   * key) or listed twice: the sort skips them.
   */
  private int[] unsorted = new int[64];
  private int unsortedCount;

  /** Whether the slot's entry is kept (its key serialized) as one the engine may not hold. */
  boolean has(int slot) {
    return slot < serialized.length && serialized[slot] != null;
  }

  /** The slot's serialized key if it is kept, else null (the flush reuses the bytes). */
  byte[] keyOf(int slot) {
    return slot < serialized.length ? serialized[slot] : null;
  }

  /** Keeps a slot whose entry became dirty, with its serialized key; it must not be kept yet. */
  void remember(int slot, byte[] key) {
    if (slot >= serialized.length) {
      int length = Math.max(slot + 1, serialized.length * 2);
      serialized = Arrays.copyOf(serialized, length);
      sorted = Arrays.copyOf(sorted, length);
    }
    serialized[slot] = key;
    if (unsortedCount == unsorted.length) {
      compactUnsorted();
    }
    unsorted[unsortedCount++] = slot;
  }

  /** Forgets a slot (and takes it out of the sorted map): the engine holds its entry. */
  void forget(int slot) {
    if (has(slot)) {
      if (sorted[slot]) {
        sortedKeys.remove(serialized[slot]);
        sorted[slot] = false;
      }
      serialized[slot] = null;
    }
  }

  /** Sorts the slots remembered since the last iterator into the map. */
  void sortRemembered() {
    for (int i = 0; i < unsortedCount; i++) {
      int slot = unsorted[i];
      if (serialized[slot] != null && !sorted[slot]) {
        sortedKeys.put(serialized[slot], slot);
        sorted[slot] = true;
      }
    }
    unsortedCount = 0;
  }

  /**
   * The sorted slots with keys in {@code [from, to)} (null: unbounded), a view: call
   * {@link #sortRemembered} first.
   */
  SortedMap<byte[], Integer> between(byte[] from, byte[] to) {
    return from == null ? (to == null ? sortedKeys : sortedKeys.headMap(to))
        : to == null ? sortedKeys.tailMap(from) : sortedKeys.subMap(from, to);
  }

  /**
   * Drops the listed slots since forgotten, and second listings, and makes room if that left
   * the list more than half full. ({@link #sorted} marks a kept slot for the pass, then is reset.)
   */
  private void compactUnsorted() {
    int kept = 0;
    for (int i = 0; i < unsortedCount; i++) {
      int slot = unsorted[i];
      if (serialized[slot] != null && !sorted[slot]) {
        sorted[slot] = true;
        unsorted[kept++] = slot;
      }
    }
    for (int i = 0; i < kept; i++) {
      sorted[unsorted[i]] = false;
    }
    unsortedCount = kept;
    if (kept > unsorted.length / 2) {
      unsorted = Arrays.copyOf(unsorted, unsorted.length * 2);
    }
  }
}
