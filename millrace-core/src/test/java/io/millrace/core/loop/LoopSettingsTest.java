package io.millrace.core.loop;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import org.junit.jupiter.api.Test;

class LoopSettingsTest {
  private static LoopSettings settings(long perPartition, long total) {
    return new LoopSettings(0, 0, 1, 4096, perPartition, total, 10,
        new AsyncSettings(1, Ordering.PARTITION, 1, 0, false));
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
  void aCapIsNeverBelowOneByte() {
    assertThat(settings(1 << 20, 10).partitionBytes(1000)).isEqualTo(1);
    assertThat(settings(1 << 20, 10).partitionBytes(0)).isEqualTo(10);
  }
}
