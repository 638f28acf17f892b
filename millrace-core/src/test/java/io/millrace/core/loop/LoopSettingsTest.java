package io.millrace.core.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import io.millrace.core.config.CoreKeys;
import org.junit.jupiter.api.Test;

class LoopSettingsTest {
  private static LoopSettings settings(long perPartition, long total) {
    return withTurn(1, perPartition, total);
  }

  private static LoopSettings withTurn(int batchSize, long perPartition, long total) {
    return new LoopSettings(0, 0, batchSize, 4096, perPartition, total, 10,
        new AsyncSettings(1, Ordering.PARTITION, 1, 0, false));
  }

  @Test
  void autoTurnsAreStrictRoundRobinUpToSixtyFourPartitionsThenGrowToThirtyTwo() {
    LoopSettings auto = withTurn(0, 1 << 20, 32L << 20);
    assertThat(auto.turnSize(0)).isEqualTo(1);
    assertThat(auto.turnSize(8)).isEqualTo(1);
    assertThat(auto.turnSize(127)).isEqualTo(1);
    assertThat(auto.turnSize(128)).isEqualTo(2);
    assertThat(auto.turnSize(1000)).isEqualTo(15);
    assertThat(auto.turnSize(100_000)).isEqualTo(32);
  }

  @Test
  void aStatedTurnSizeHoldsWhateverThePartitionCount() {
    assertThat(withTurn(4, 1 << 20, 32L << 20).turnSize(1)).isEqualTo(4);
    assertThat(withTurn(4, 1 << 20, 32L << 20).turnSize(1000)).isEqualTo(4);
  }

  @Test
  void fewPartitionsKeepTheirOwnCap() {
    assertThat(settings(1 << 20, 32L << 20).partitionBytes(8)).isEqualTo(1 << 20);
    assertThat(settings(1 << 20, 32L << 20).partitionBytes(32)).isEqualTo(1 << 20);
  }

  @Test
  void manyPartitionsShareTheContainersTotal() {
    assertThat(settings(1 << 20, 32L << 20).partitionBytes(1000)).isEqualTo((32L << 20) / 1000);
  }

  @Test
  void byDefaultEachPartitionGetsItsShareOfTheTotalWhateverTheCount() {
    LoopSettings defaults = settings(CoreKeys.DEFAULT_BUFFER_MAX_BYTES,
        CoreKeys.DEFAULT_BUFFER_MAX_TOTAL_BYTES);
    assertThat(defaults.partitionBytes(1)).isEqualTo(32L << 20);
    assertThat(defaults.partitionBytes(8)).isEqualTo(4L << 20);
    assertThat(defaults.partitionBytes(1000)).isEqualTo((32L << 20) / 1000);
  }

  @Test
  void aCapIsNeverBelowOneByte() {
    assertThat(settings(1 << 20, 10).partitionBytes(1000)).isEqualTo(1);
    assertThat(settings(1 << 20, 10).partitionBytes(0)).isEqualTo(10);
  }
}
