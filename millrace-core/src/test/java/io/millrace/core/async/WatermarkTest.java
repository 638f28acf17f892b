package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WatermarkTest {
  private static final long NOT_MOVED = Long.MIN_VALUE;

  @Test
  void aNewWatermarkIsEmptyAndNotFull() {
    Watermark w = new Watermark(4);
    assertThat(w.isEmpty()).isTrue();
    assertThat(w.isFull()).isFalse();
    assertThat(w.outstanding()).isZero();
  }

  @Test
  void outOfOrderCompletionMovesTheWatermarkOnlyWhenTheOldestCompletes() {
    Watermark w = new Watermark(8);
    long s10 = w.add(10);
    long s11 = w.add(11);
    long s12 = w.add(12);
    long s13 = w.add(13);
    assertThat(w.outstanding()).isEqualTo(4);

    assertThat(w.complete(s12)).as("12 done, 10 and 11 not").isEqualTo(NOT_MOVED);
    assertThat(w.complete(s11)).as("11 done, 10 not").isEqualTo(NOT_MOVED);
    assertThat(w.outstanding()).as("nothing is below the watermark yet").isEqualTo(4);
    assertThat(w.isEmpty()).isFalse();

    assertThat(w.complete(s10)).as("the oldest completes: up to 12 at once").isEqualTo(12);
    assertThat(w.outstanding()).isEqualTo(1);
    assertThat(w.complete(s13)).isEqualTo(13);
    assertThat(w.isEmpty()).isTrue();
    assertThat(w.outstanding()).isZero();
  }

  @Test
  void offsetsWithGapsAreReportedAsTheyWereAdded() {
    // File offsets are byte positions: the watermark reports offsets, not slot numbers.
    Watermark w = new Watermark(4);
    long a = w.add(0);
    long b = w.add(17);
    long c = w.add(40);
    assertThat(w.complete(b)).isEqualTo(NOT_MOVED);
    assertThat(w.complete(a)).isEqualTo(17);
    assertThat(w.complete(c)).isEqualTo(40);
  }

  @Test
  void isFullWhenEverySlotIsTakenAndFreesAsTheWatermarkMoves() {
    Watermark w = new Watermark(4); // rounded up to a power of two: 4 slots
    long[] slots = new long[4];
    for (int i = 0; i < 4; i++) {
      assertThat(w.isFull()).isFalse();
      slots[i] = w.add(i);
    }
    assertThat(w.isFull()).isTrue();
    assertThat(w.outstanding()).isEqualTo(4);

    assertThat(w.complete(slots[3])).isEqualTo(NOT_MOVED);
    assertThat(w.isFull()).as("completing a later slot frees nothing").isTrue();
    assertThat(w.complete(slots[0])).isEqualTo(0);
    assertThat(w.isFull()).isFalse();
    assertThat(w.outstanding()).isEqualTo(3);

    long s4 = w.add(4); // reuses the first slot of the ring
    assertThat(w.isFull()).isTrue();
    assertThat(w.complete(slots[1])).isEqualTo(1);
    assertThat(w.complete(slots[2])).as("2 frees 3, which completed long ago").isEqualTo(3);
    assertThat(w.complete(s4)).isEqualTo(4);
    assertThat(w.isEmpty()).isTrue();
  }

  @Test
  void capacityIsRoundedUpToAPowerOfTwo() {
    assertThat(capacity(new Watermark(1))).isEqualTo(2);
    assertThat(capacity(new Watermark(2))).isEqualTo(2);
    assertThat(capacity(new Watermark(3))).isEqualTo(4);
    assertThat(capacity(new Watermark(20))).isEqualTo(32);
    assertThat(capacity(new Watermark(32))).isEqualTo(32);
  }

  private static int capacity(Watermark w) {
    int n = 0;
    while (!w.isFull()) {
      w.add(n++);
    }
    return n;
  }

  @Test
  void randomCompletionOrderAlwaysReportsTheLongestCompletedPrefix() {
    for (long seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      Watermark w = new Watermark(64);
      long next = 0;
      long expectedWatermark = -1;
      List<long[]> open = new ArrayList<>(); // {slot, offset}
      boolean[] done = new boolean[10_000];
      for (int step = 0; step < 5_000; step++) {
        if (!w.isFull() && (open.isEmpty() || random.nextBoolean())) {
          long offset = next++;
          open.add(new long[] {w.add(offset), offset});
          continue;
        }
        long[] picked = open.remove(random.nextInt(open.size()));
        done[(int) picked[1]] = true;
        long moved = w.complete(picked[0]);
        long longest = expectedWatermark;
        while (done[(int) (longest + 1)]) {
          longest++;
        }
        if (longest == expectedWatermark) {
          assertThat(moved).as("seed %d step %d", seed, step).isEqualTo(NOT_MOVED);
        } else {
          assertThat(moved).as("seed %d step %d", seed, step).isEqualTo(longest);
          expectedWatermark = longest;
        }
        assertThat(w.outstanding()).isEqualTo((int) (next - 1 - expectedWatermark));
      }
      Collections.shuffle(open, random);
      for (long[] slot : open) {
        w.complete(slot[0]);
      }
      assertThat(w.isEmpty()).isTrue();
    }
  }

  @Test
  void aLargeRingGrowsAsUsedAndKeepsOrderAcrossTheWrap() {
    Watermark w = new Watermark(10_000); // starts at 1,024 slots, grows to 16,384
    // Wrap the small ring first: slots and offsets must survive the growth in order.
    for (long o = 0; o < 1_000; o++) {
      w.complete(w.add(o));
    }
    long first = w.add(1_000); // held: the watermark stays at 999 while the ring grows past it
    long[] slots = new long[9_999];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = w.add(1_001 + i);
    }
    assertThat(w.isFull()).isFalse();
    assertThat(w.outstanding()).isEqualTo(10_000);
    for (long slot : slots) {
      assertThat(w.complete(slot)).isEqualTo(Long.MIN_VALUE);
    }
    assertThat(w.complete(first)).isEqualTo(10_999);
    assertThat(w.isEmpty()).isTrue();
  }

  @Test
  void aGrownRingIsFullOnlyAtItsCapacity() {
    Watermark w = new Watermark(3_000); // capacity 4,096
    for (int i = 0; i < 4_096; i++) {
      w.add(i);
    }
    assertThat(w.isFull()).isTrue();
    assertThat(w.complete(0)).isEqualTo(0);
    assertThat(w.isFull()).isFalse();
  }
}
