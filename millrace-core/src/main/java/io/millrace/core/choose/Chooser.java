package io.millrace.core.choose;

/**
 * Picks the next partition to deliver from, among those whose buffers hold messages.
 *
 * <p>Round-robin inside a priority tier, higher tiers first ({@code streams.<id>.priority}). While
 * any bootstrap partition ({@code streams.<id>.bootstrap=true}) has not read up to its head as of
 * start, only bootstrap partitions are chosen: the rest of the job waits for them.
 *
 * <p>Partitions with data are bits in one bitset per tier, indexed by the dense partition index:
 * choosing is a scan for the next set bit after the tier's cursor, with no allocation and no
 * hashing. Loop thread only.
 */
public final class Chooser {
  private final int[] tierOf;
  private final long[][] ready;
  private final int[] cursor;
  private final boolean[] bootstrapPending;
  private final long[] bootstrapReady;
  private int bootstrapCursor;
  private int pendingBootstraps;

  /**
   * Creates a chooser.
   *
   * @param priorities each partition's priority (higher goes first)
   * @param bootstrap whether each partition belongs to a bootstrap stream still to be read
   */
  public Chooser(int[] priorities, boolean[] bootstrap) {
    int n = priorities.length;
    int[] distinct = java.util.Arrays.stream(priorities).distinct().sorted().toArray();
    int tiers = distinct.length;
    tierOf = new int[n];
    for (int p = 0; p < n; p++) {
      // Tier 0 is the highest priority.
      tierOf[p] = tiers - 1 - java.util.Arrays.binarySearch(distinct, priorities[p]);
    }
    int words = (n + 63) >>> 6;
    ready = new long[tiers][words];
    cursor = new int[tiers];
    bootstrapPending = bootstrap.clone();
    bootstrapReady = new long[words];
    for (boolean b : bootstrap) {
      if (b) {
        pendingBootstraps++;
      }
    }
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
