package io.millrace.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Offsets imported from another runtime, under a real file checkpoint store. */
class ImportedCheckpointsTest {
  private static final StreamPartition P0 = new StreamPartition("kafka", "in", 0);
  private static final StreamPartition P1 = new StreamPartition("kafka", "in", 1);

  @Test
  void importedOffsetsAreReadUntilTheJobCommitsItsOwnWhichWinFromThenOn(@TempDir Path dir) {
    CheckpointStore store = new ImportedCheckpoints(new FileCheckpointStore(dir),
        Map.of(P0, 41L, P1, 7L));
    assertThat(store.read()).isEqualTo(Map.of(P0, 41L, P1, 7L));
    assertThat(store.read(Set.of(1))).isEqualTo(Map.of(P1, 7L));

    CheckpointWriter writer = store.writer(0, List.of(P0, P1));
    writer.write(new long[] {50L, CheckpointStore.NONE});
    assertThat(store.read()).isEqualTo(Map.of(P0, 50L, P1, 7L));
    assertThat(store.read(Set.of(0))).isEqualTo(Map.of(P0, 50L));
    // Only the store holds what was committed: a restart reads it alone.
    assertThat(new FileCheckpointStore(dir).read()).isEqualTo(Map.of(P0, 50L));
  }
}
