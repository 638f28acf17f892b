package io.millrace.core.loop;

import java.util.Arrays;

/**
 * A container's partitions by dense index. Indices stay dense while tasks come and go: a removed
 * partition's index is given to the next one added, so arrays indexed by it (the chooser's
 * bitsets) grow only to the most partitions held at once. Changed only when the assignment does,
 * never on the per-message path. Loop thread only.
 */
final class PartitionTable {
  private PartitionState[] byIndex = new PartitionState[16];
  private int[] free = new int[16];
  private int freeCount;
  /** Every index in use is below this. */
  private int limit;
  private int count;

  /** The partition at {@code index}, or null if none holds it now. */
  PartitionState get(int index) {
    return index < limit ? byIndex[index] : null;
  }

  /** One more than the highest index ever given: the size arrays indexed by it need. */
  int limit() {
    return limit;
  }

  /** Partitions held. */
  int count() {
    return count;
  }

  /** The index the next {@link #add} will use. */
  int nextIndex() {
    return freeCount > 0 ? free[freeCount - 1] : limit;
  }

  /** Adds a partition at {@link #nextIndex}. */
  void add(PartitionState partition) {
    int index = nextIndex();
    if (partition.index != index) {
      throw new IllegalArgumentException("partition " + partition.id + " has index "
          + partition.index + ", the next free one is " + index);
    }
    if (freeCount > 0) {
      freeCount--;
    } else {
      if (limit == byIndex.length) {
        byIndex = Arrays.copyOf(byIndex, limit * 2);
      }
      limit++;
    }
    byIndex[index] = partition;
    count++;
  }

  /** Removes a partition; its index is reused. */
  void remove(PartitionState partition) {
    if (byIndex[partition.index] != partition) {
      throw new IllegalArgumentException("partition " + partition.id + " is not held");
    }
    byIndex[partition.index] = null;
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, free.length * 2);
    }
    free[freeCount++] = partition.index;
    count--;
  }

  /** The partitions held, by index (a new array). */
  PartitionState[] snapshot() {
    PartitionState[] held = new PartitionState[count];
    int n = 0;
    for (int i = 0; i < limit; i++) {
      if (byIndex[i] != null) {
        held[n++] = byIndex[i];
      }
    }
    return held;
  }
}
