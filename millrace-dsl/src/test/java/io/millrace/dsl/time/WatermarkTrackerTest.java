package io.millrace.dsl.time;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The watermark over a task's partitions, driven by an explicit clock. */
class WatermarkTrackerTest {
  @Test
  void eachPartitionsWatermarkTrailsItsLatestTimestampByItsOutOfOrderness() {
    WatermarkTracker t = new WatermarkTracker(new long[] {100}, 0, false, 0);
    assertThat(t.watermark()).isEqualTo(WatermarkTracker.NONE);
    assertThat(t.observe(0, 1_000, 0)).isEqualTo(900);
    assertThat(t.observe(0, 950, 0)).as("an older record does not move it back").isEqualTo(900);
    assertThat(t.observe(0, 1_500, 0)).isEqualTo(1_400);
  }

  @Test
  void aGivenWatermarkIsTakenAsItIsAndASubsetsWatermarkIsItsOwn() {
    WatermarkTracker t = new WatermarkTracker(new long[] {1_000, 5_000}, 0, false, 0);
    t.observe(0, 10_000, 0);
    assertThat(t.observeWatermark(1, 4_000, false, 0)).as("no out-of-orderness taken off again")
        .isEqualTo(4_000);
    assertThat(t.observeWatermark(1, 3_000, false, 0)).as("never back").isEqualTo(4_000);
    assertThat(t.watermarkOf(new int[] {0}, 0)).isEqualTo(9_000);
    assertThat(t.watermarkOf(new int[] {}, 0)).as("fed by nothing: holds nothing back")
        .isEqualTo(Long.MAX_VALUE);
    assertThat(t.observeWatermark(1, Long.MAX_VALUE, false, 0)).isEqualTo(9_000);
  }

  @Test
  void theTasksWatermarkIsTheMinimumOverItsPartitions() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0, 0}, 0, false, 0);
    assertThat(t.observe(0, 5_000, 0)).as("partition 1 has nothing yet: it holds everything")
        .isEqualTo(WatermarkTracker.NONE);
    assertThat(t.observe(1, 2_000, 0)).isEqualTo(2_000);
    assertThat(t.observe(1, 7_000, 0)).isEqualTo(5_000);
  }

  @Test
  void anIdlePartitionIsLeftOutAfterTheTimeoutAndCountsAgainWhenItHasARecord() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0, 0}, 1_000, false, 0);
    t.observe(1, 1_000, 0);
    assertThat(t.observe(0, 9_000, 500)).as("partition 1 is not idle yet").isEqualTo(1_000);
    assertThat(t.advance(999)).isEqualTo(1_000);
    assertThat(t.advance(1_000)).as("partition 1 idle for the timeout: left out")
        .isEqualTo(9_000);
    assertThat(t.observe(1, 2_000, 1_100)).as("back, behind: the watermark never goes back")
        .isEqualTo(9_000);
    assertThat(t.observe(0, 12_000, 1_200)).as("partition 1 holds the others again")
        .isEqualTo(9_000);
    assertThat(t.observe(1, 10_000, 1_300)).isEqualTo(10_000);
  }

  @Test
  void aPartitionThatNeverHasARecordIsIdleAfterTheTimeoutFromStart() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0, 0}, 1_000, false, 0);
    assertThat(t.observe(0, 3_000, 10)).isEqualTo(WatermarkTracker.NONE);
    assertThat(t.advance(1_000)).isEqualTo(3_000);
  }

  @Test
  void withoutTheWallClockAdvanceAQuietInputHoldsTheWatermark() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0}, 1_000, false, 0);
    t.observe(0, 3_000, 0);
    assertThat(t.advance(60_000)).isEqualTo(3_000);
  }

  @Test
  void withTheWallClockAdvanceAQuietInputsWatermarkFollowsTheClockFromItsLastRecord() {
    WatermarkTracker t = new WatermarkTracker(new long[] {200}, 1_000, true, 0);
    t.observe(0, 3_000, 5_000);
    assertThat(t.advance(5_500)).as("not idle yet").isEqualTo(2_800);
    assertThat(t.advance(6_000)).as("idle: the clock has moved 1 s since the last record")
        .isEqualTo(3_800);
    assertThat(t.advance(65_000)).isEqualTo(62_800);
    assertThat(t.observe(0, 3_100, 65_001)).as("a record does not move it back")
        .isEqualTo(62_800);
  }

  @Test
  void theEndOfTheInputsClosesEverything() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0}, 0, false, 0);
    t.observe(0, 3_000, 0);
    assertThat(t.end()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aPartitionWhoseRecordsHaveNoTimestampHoldsNoWindowBack() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0, 0}, 0, false, 0);
    t.observe(1, -1, 10);
    assertThat(t.observe(0, 5_000, 20)).isEqualTo(5_000);
    t.observe(1, 7_000, 30); // a timestamp at last: it counts from now on
    assertThat(t.observe(0, 9_000, 40)).isEqualTo(7_000);
  }

  @Test
  void aGivenPartitionIsIdleWhenItsSendersSaySoNotByATimeoutOfItsOwn() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0, 0}, 1_000, false, 0);
    t.observe(0, 9_000, 0);
    t.observeWatermark(1, 2_000, false, 0);
    assertThat(t.advance(500)).isEqualTo(2_000);
    assertThat(t.observeWatermark(1, 2_000, false, 5_000)).as("its senders are active")
        .isEqualTo(2_000);
    assertThat(t.observeWatermark(1, 2_000, true, 5_000)).as("they are idle: left out")
        .isEqualTo(9_000);
  }

  @Test
  void partitionsAreIdleWhenNoneHasATimestampedRecordOrEachIsIdle() {
    WatermarkTracker t = new WatermarkTracker(new long[] {0, 0}, 1_000, false, 0);
    assertThat(t.idleOf(new int[] {0}, 500)).as("waited for at start").isFalse();
    assertThat(t.idleOf(new int[] {0}, 1_000)).as("never a record: idle after the timeout")
        .isTrue();
    t.observe(1, -1, 1_000);
    assertThat(t.idleOf(new int[] {1}, 1_000)).as("records without timestamps").isTrue();
    t.observe(0, 5_000, 1_100);
    assertThat(t.idleOf(new int[] {0, 1}, 1_200)).isFalse();
    assertThat(t.idleOf(new int[] {0, 1}, 2_100)).isTrue();
  }
}
