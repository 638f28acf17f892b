package io.millrace.core.choose;

import java.util.Arrays;

/**
 * Picks the next partition to deliver from, among those whose buffers hold messages.
 *
 * <p>Round-robin inside a priority tier, higher tiers first ({@code streams.<id>.priority}). While
 * any bootstrap partition ({@code streams.<id>.bootstrap=true}) has not read up to its head as of
 * its start, only bootstrap partitions are chosen: the rest of the container waits for them.
 *
 * <p>Partitions with data are bits in one bitset per tier, indexed by the dense partition index:
 * choosing is a scan for the next set bit after the tier's cursor, with no allocation and no
 * hashing. Partitions are {@link #add added} and {@link #remove removed} when the container's
 * assignment changes; the bitsets grow then, never while choosing. Loop thread only.
 */
public final class Chooser {
  /** The tiers' priorities, highest first: tier 0 goes first. */
  private int[] tierPriority = new int[0];
  /** Each partition's tier, or -1 for an index no partition holds. */
  private int[] tierOf = new int[0];
  private long[][] ready = new long[0][];
  private int[] cursor = new int[0];
  private boolean[] bootstrapPending = new boolean[0];
  private long[] bootstrapReady = new long[0];
  private int bootstrapCursor;
  private int pendingBootstraps;

  /** A chooser with no partitions yet. */
  public Chooser() {}

  /**
   * A chooser with partitions 0 .. n-1.
   *
   * @param priorities each partition's priority (higher goes first)
   * @param bootstrap whether each partition belongs to a bootstrap stream still to be read
   */
  public Chooser(int[] priorities, boolean[] bootstrap) {
    for (int p = 0; p < priorities.length; p++) {
      add(p, priorities[p], bootstrap[p]);
    }
  }

  /**
   * Adds a partition at a free index; it has no data until {@link #available}.
   *
   * @param priority its priority (higher goes first)
   * @param bootstrap whether it must be read to its head before other partitions are chosen
   */
  public void add(int p, int priority, boolean bootstrap) {
    ensureCapacity(p + 1);
    if (tierOf[p] >= 0) {
      throw new IllegalStateException("partition index " + p + " is already in the chooser");
    }
    tierOf[p] = tierFor(priority);
    if (bootstrap) {
      bootstrapPending[p] = true;
      pendingBootstraps++;
    }
  }

  /** Removes a partition; its index may be added again. */
  public void remove(int p) {
    unavailable(p);
    caughtUp(p);
    tierOf[p] = -1;
  }

  private int tierFor(int priority) {
    for (int t = 0; t < tierPriority.length; t++) {
      if (tierPriority[t] == priority) {
        return t;
      }
    }
    // A new tier, in priority order: rare (a job has few distinct priorities), so rebuild.
    int[] priorities = Arrays.copyOf(tierPriority, tierPriority.length + 1);
    priorities[tierPriority.length] = priority;
    Arrays.sort(priorities);
    for (int i = 0, j = priorities.length - 1; i < j; i++, j--) {
      int swap = priorities[i];
      priorities[i] = priorities[j];
      priorities[j] = swap;
    }
    int words = bootstrapReady.length;
    long[][] newReady = new long[priorities.length][];
    int[] newCursor = new int[priorities.length];
    int[] moved = new int[tierPriority.length];
    for (int t = 0; t < priorities.length; t++) {
      int old = Arrays.binarySearch(reversed(tierPriority), priorities[t]);
      if (old >= 0) {
        int oldTier = tierPriority.length - 1 - old;
        newReady[t] = ready[oldTier];
        newCursor[t] = cursor[oldTier];
        moved[oldTier] = t;
      } else {
        newReady[t] = new long[words];
      }
    }
    for (int p = 0; p < tierOf.length; p++) {
      if (tierOf[p] >= 0) {
        tierOf[p] = moved[tierOf[p]];
      }
    }
    tierPriority = priorities;
    ready = newReady;
    cursor = newCursor;
    return tierFor(priority);
  }

  private static int[] reversed(int[] descending) {
    int[] ascending = new int[descending.length];
    for (int i = 0; i < descending.length; i++) {
      ascending[i] = descending[descending.length - 1 - i];
    }
    return ascending;
  }

  private void ensureCapacity(int partitions) {
    if (partitions <= tierOf.length) {
      return;
    }
    int size = Math.max(partitions, tierOf.length * 2);
    int old = tierOf.length;
    tierOf = Arrays.copyOf(tierOf, size);
    Arrays.fill(tierOf, old, size, -1);
    bootstrapPending = Arrays.copyOf(bootstrapPending, size);
    int words = (size + 63) >>> 6;
    for (int t = 0; t < ready.length; t++) {
      ready[t] = Arrays.copyOf(ready[t], words);
    }
    bootstrapReady = Arrays.copyOf(bootstrapReady, words);
  }

  /** The partition's buffer now holds messages. */
  public void available(int p) {
    ready[tierOf[p]][p >>> 6] |= 1L << p;
    if (bootstrapPending[p]) {
      bootstrapReady[p >>> 6] |= 1L << p;
    }
  }

  /** The partition's buffer is empty (or the partition is done). */
  public void unavailable(int p) {
    ready[tierOf[p]][p >>> 6] &= ~(1L << p);
    bootstrapReady[p >>> 6] &= ~(1L << p);
  }

  /** Whether the partition is a bootstrap partition not yet read to its head. */
  public boolean isBootstrapPending(int p) {
    return bootstrapPending[p];
  }

  /** Whether any bootstrap partition is still being read. */
  public boolean bootstrapping() {
    return pendingBootstraps > 0;
  }

  /** The bootstrap partition has read up to its head as of start (or ended). */
  public void caughtUp(int p) {
    if (bootstrapPending[p]) {
      bootstrapPending[p] = false;
      bootstrapReady[p >>> 6] &= ~(1L << p);
      pendingBootstraps--;
    }
  }

  /** The next partition to deliver from, or -1 if none may be chosen now. */
  public int next() {
    if (pendingBootstraps > 0) {
      int p = nextSetBit(bootstrapReady, bootstrapCursor);
      if (p >= 0) {
        bootstrapCursor = p + 1;
      }
      return p;
    }
    for (int t = 0; t < ready.length; t++) {
      int p = nextSetBit(ready[t], cursor[t]);
      if (p >= 0) {
        cursor[t] = p + 1;
        return p;
      }
    }
    return -1;
  }

  /** The first set bit at or after {@code from}, wrapping around; -1 if none. */
  static int nextSetBit(long[] bits, int from) {
    int words = bits.length;
    if (words == 0) {
      return -1;
    }
    int w = from >>> 6;
    if (w >= words) {
      w = 0;
      from = 0;
    }
    long word = bits[w] & (-1L << from); // drop bits before the cursor in the first word
    for (int i = 0; i <= words; i++) {
      if (word != 0) {
        return (w << 6) + Long.numberOfTrailingZeros(word);
      }
      w = w + 1 == words ? 0 : w + 1;
      word = bits[w];
    }
    return -1;
  }
}
