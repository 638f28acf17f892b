package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pane keys sort as their panes' starts (the store's unsigned byte order), negative included. */
class PaneKeysTest {
  @Test
  void keysSortByPaneStartThenRecordKeyAndDecodeToWhatWasEncoded() {
    long[] starts = {Long.MIN_VALUE, -60_000, -1, 0, 1, 60_000, Long.MAX_VALUE};
    List<byte[]> keys = new ArrayList<>();
    for (long start : starts) {
      keys.add(PaneKeys.of(start, new byte[] {(byte) 0xff}));
      keys.add(PaneKeys.of(start, new byte[] {0x01}));
    }
    List<byte[]> sorted = new ArrayList<>(keys);
    sorted.sort(Arrays::compareUnsigned);
    for (int i = 0; i < starts.length; i++) {
      assertThat(PaneKeys.paneStart(sorted.get(2 * i))).isEqualTo(starts[i]);
      assertThat(PaneKeys.recordKey(sorted.get(2 * i))).containsExactly(0x01);
      assertThat(PaneKeys.recordKey(sorted.get(2 * i + 1))).containsExactly((byte) 0xff);
    }
    assertThat(Arrays.compareUnsigned(PaneKeys.PROGRESS, PaneKeys.start(Long.MIN_VALUE)))
        .as("the progress entry sorts before every pane").isNegative();
    assertThat(Arrays.compareUnsigned(PaneKeys.of(59_999, new byte[] {(byte) 0xff}),
        PaneKeys.start(60_000))).as("a range's end bound excludes the pane it starts")
        .isNegative();
  }
}
