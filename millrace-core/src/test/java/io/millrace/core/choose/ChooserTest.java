package io.millrace.core.choose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChooserTest {

  private static Chooser chooser(int[] priorities) {
    return new Chooser(priorities, new boolean[priorities.length]);
  }

  private static List<Integer> next(Chooser chooser, int times) {
    List<Integer> picks = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      picks.add(chooser.next());
    }
    return picks;
  }

  @Test
  void roundRobinGivesEachPartitionATurn() {
    Chooser chooser = chooser(new int[4]);
    for (int p = 0; p < 4; p++) {
      chooser.available(p);
    }
    assertThat(next(chooser, 9)).containsExactly(0, 1, 2, 3, 0, 1, 2, 3, 0);
  }

  @Test
  void roundRobinSkipsPartitionsWithoutDataAndPicksThemUpWhenTheyHaveSome() {
    Chooser chooser = chooser(new int[4]);
    chooser.available(0);
    chooser.available(2);
    assertThat(next(chooser, 4)).containsExactly(0, 2, 0, 2);
    chooser.available(3);
    chooser.unavailable(0);
    assertThat(next(chooser, 4)).containsExactly(3, 2, 3, 2);
  }

  @Test
  void nothingAvailableGivesMinusOne() {
    Chooser chooser = chooser(new int[3]);
    assertThat(chooser.next()).isEqualTo(-1);
    chooser.available(1);
    chooser.unavailable(1);
    assertThat(chooser.next()).isEqualTo(-1);
  }

  @Test
  void higherPriorityTierGoesFirstWithRoundRobinInsideATier() {
    // Partitions 1 and 3 are the high tier, 4 is in the middle, 0 and 2 are low (negative).
    Chooser chooser = chooser(new int[] {-1, 5, -1, 5, 0});
    for (int p = 0; p < 5; p++) {
      chooser.available(p);
    }
    assertThat(next(chooser, 4)).containsExactly(1, 3, 1, 3);
    chooser.unavailable(1);
    assertThat(next(chooser, 2)).containsExactly(3, 3);
    chooser.unavailable(3);
    assertThat(next(chooser, 2)).containsExactly(4, 4);
    chooser.unavailable(4);
    assertThat(next(chooser, 4)).containsExactly(0, 2, 0, 2);
    // A high-priority partition with data again pre-empts the low tier at once.
    chooser.available(3);
    assertThat(next(chooser, 2)).containsExactly(3, 3);
  }

  @Test
  void bootstrapPartitionsAreChosenExclusivelyUntilCaughtUp() {
    boolean[] bootstrap = {false, true, false, true};
    Chooser chooser = new Chooser(new int[] {10, 0, 10, 0}, bootstrap);
    assertThat(chooser.bootstrapping()).isTrue();
    assertThat(chooser.isBootstrapPending(1)).isTrue();
    assertThat(chooser.isBootstrapPending(0)).isFalse();
    chooser.available(0);
    chooser.available(2);
    // Only ordinary partitions have data: nothing may be chosen, despite their higher priority.
    assertThat(chooser.next()).isEqualTo(-1);
    chooser.available(1);
    chooser.available(3);
    assertThat(next(chooser, 4)).containsExactly(1, 3, 1, 3);
    chooser.caughtUp(1);
    assertThat(chooser.bootstrapping()).isTrue();
    assertThat(chooser.isBootstrapPending(1)).isFalse();
    assertThat(next(chooser, 3)).containsExactly(3, 3, 3);
    chooser.unavailable(3);
    assertThat(chooser.next()).isEqualTo(-1);
    chooser.caughtUp(3);
    chooser.caughtUp(3); // twice is harmless
    assertThat(chooser.bootstrapping()).isFalse();
    // Now the priorities apply: 0 and 2 (priority 10) before 1 (priority 0, still has data).
    assertThat(next(chooser, 4)).containsExactly(0, 2, 0, 2);
    chooser.unavailable(0);
    chooser.unavailable(2);
    assertThat(next(chooser, 2)).containsExactly(1, 1);
  }

  @Test
  void nextSetBitWrapsAroundWithMoreThan64Partitions() {
    long[] bits = new long[3]; // 192 slots
    set(bits, 3);
    set(bits, 65);
    set(bits, 70);
    set(bits, 129);
    assertThat(Chooser.nextSetBit(bits, 0)).isEqualTo(3);
    assertThat(Chooser.nextSetBit(bits, 3)).isEqualTo(3);
    assertThat(Chooser.nextSetBit(bits, 4)).isEqualTo(65);
    assertThat(Chooser.nextSetBit(bits, 64)).isEqualTo(65);
    assertThat(Chooser.nextSetBit(bits, 66)).isEqualTo(70);
    assertThat(Chooser.nextSetBit(bits, 71)).isEqualTo(129);
    assertThat(Chooser.nextSetBit(bits, 128)).isEqualTo(129);
    // Past the last set bit: wraps around to the first.
    assertThat(Chooser.nextSetBit(bits, 130)).isEqualTo(3);
    assertThat(Chooser.nextSetBit(bits, 191)).isEqualTo(3);
    // A cursor past the end of the bitset starts again at 0.
    assertThat(Chooser.nextSetBit(bits, 192)).isEqualTo(3);
    assertThat(Chooser.nextSetBit(new long[3], 5)).isEqualTo(-1);
  }

  @Test
  void nextSetBitFindsABitBeforeTheCursorInTheCursorsOwnWord() {
    long[] bits = new long[2];
    set(bits, 66);
    // The cursor is after the only set bit, in the same word: the scan must come back round to it.
    assertThat(Chooser.nextSetBit(bits, 67)).isEqualTo(66);
    long[] one = new long[1];
    set(one, 5);
    assertThat(Chooser.nextSetBit(one, 6)).isEqualTo(5);
    assertThat(Chooser.nextSetBit(one, 63)).isEqualTo(5);
  }

  @Test
  void roundRobinCoversEveryPartitionOfAWideContainer() {
    int n = 200;
    Chooser chooser = chooser(new int[n]);
    for (int p = 0; p < n; p++) {
      chooser.available(p);
    }
    List<Integer> expected = new ArrayList<>();
    for (int round = 0; round < 2; round++) {
      for (int p = 0; p < n; p++) {
        expected.add(p);
      }
    }
    assertThat(next(chooser, 2 * n)).isEqualTo(expected);
    // Sparse partitions across word boundaries, in cursor order with wrap-around.
    for (int p = 0; p < n; p++) {
      chooser.unavailable(p);
    }
    for (int p : new int[] {63, 64, 127, 128, 199}) {
      chooser.available(p);
    }
    assertThat(next(chooser, 7)).containsExactly(63, 64, 127, 128, 199, 63, 64);
  }

  @Test
  void bootstrapPartitionsBeyond64AreChosenInTurn() {
    int n = 130;
    boolean[] bootstrap = new boolean[n];
    bootstrap[5] = true;
    bootstrap[100] = true;
    bootstrap[129] = true;
    Chooser chooser = new Chooser(new int[n], bootstrap);
    for (int p = 0; p < n; p++) {
      chooser.available(p);
    }
    assertThat(next(chooser, 6)).containsExactly(5, 100, 129, 5, 100, 129);
    chooser.caughtUp(5);
    chooser.caughtUp(100);
    chooser.caughtUp(129);
    assertThat(next(chooser, 3)).containsExactly(0, 1, 2);
  }

  private static void set(long[] bits, int p) {
    bits[p >>> 6] |= 1L << p;
  }
}
