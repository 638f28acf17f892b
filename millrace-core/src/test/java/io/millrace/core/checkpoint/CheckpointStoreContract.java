package io.millrace.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointException;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link CheckpointStore} and its {@link CheckpointWriter}s must do, run against each
 * implementation (a subclass per store: files, Kafka's checkpoint topic, a Kafka group's offsets),
 * as {@link io.millrace.core.system.SystemConsumerContract} does for consumers.
 *
 * <p>Each test's partitions are those of two input streams, {@code a} and {@code b}, of the store's
 * system, and of a store's changelog ({@code changelog:counts}, one partition per task): partition
 * k of each belongs to task k. A store is opened again (another instance on the same place) to
 * read what an earlier one wrote, as a restarted process does.
 *
 * <p>What it proves: what a writer wrote is read back, per partition, by the writer's store and by
 * a store opened afterwards; a partition written as {@link CheckpointStore#NONE} has no checkpoint;
 * a second write replaces the first; a writer that no longer holds a partition (its container's
 * tasks changed) leaves that partition's checkpoint as it was; two containers' writers are read
 * together, and the later of two writes of a partition wins; {@link CheckpointStore#read(Set)}
 * gives only the tasks asked for; many partitions, offset 0 and large offsets round-trip; and a
 * damaged checkpoint is a {@link CheckpointException} that says where it is, never an empty read
 * (a silent restart from the beginning).
 */
public abstract class CheckpointStoreContract {
  /** The changelog partition of a store named {@code counts}, as the runtime checkpoints it. */
  protected static final String CHANGELOG = "changelog:counts";
  private final List<CheckpointStore> opened = new ArrayList<>();

  /**
   * Opens this test's store: on the same place at every call in a test (a second call is a
   * restart), holding partitions 0 to {@code partitions - 1} of inputs {@code a} and {@code b} and
   * their tasks' {@link #CHANGELOG} partitions. Each test asks for one partition count.
   */
  protected abstract CheckpointStore openStore(int partitions) throws Exception;

  /** The system the partitions are on. */
  protected abstract String system();

  /**
   * Damages, outside the store, the checkpoint that holds {@code partition} (written by container
   * 0), so that it cannot be read.
   */
  protected abstract void damage(StreamPartition partition) throws Exception;

  /** What a {@link CheckpointException} about a damaged checkpoint names: its file, topic, group. */
  protected abstract String where();

  @AfterEach
  void closeStores() {
    for (CheckpointStore store : opened) {
      store.close();
    }
    opened.clear();
  }

  private CheckpointStore open(int partitions) throws Exception {
    CheckpointStore store = openStore(partitions);
    opened.add(store);
    return store;
  }

  private StreamPartition a(int partition) {
    return new StreamPartition(system(), "a", partition);
  }

  private StreamPartition b(int partition) {
    return new StreamPartition(system(), "b", partition);
  }

  private StreamPartition changelog(int task) {
    return new StreamPartition(system(), CHANGELOG, task);
  }

  private static Map<StreamPartition, Long> offsets(List<StreamPartition> partitions,
      long[] offsets) {
    Map<StreamPartition, Long> map = new HashMap<>();
    for (int i = 0; i < offsets.length; i++) {
      if (offsets[i] != CheckpointStore.NONE) {
        map.put(partitions.get(i), offsets[i]);
      }
    }
    return map;
  }

  @Test
  void aStoreWithNothingWrittenReadsNoCheckpoint() throws Exception {
    CheckpointStore store = open(2);
    assertThat(store.read()).isEmpty();
    assertThat(store.read(Set.of(0, 1))).isEmpty();
  }

  @Test
  void whatAWriterWroteIsReadBackPerPartitionAlsoAfterARestart() throws Exception {
    CheckpointStore store = open(3);
    List<StreamPartition> layout = List.of(a(0), b(0), a(1), b(1), a(2), b(2));
    long[] written = {10, 20, 11, 21, 12, 22};
    store.writer(0, layout).write(written);

    assertThat(store.read()).isEqualTo(offsets(layout, written));
    assertThat(open(3).read()).as("read by a store opened afterwards")
        .isEqualTo(offsets(layout, written));
  }

  @Test
  void aPartitionWrittenAsNoneHasNoCheckpointUntilItIsWritten() throws Exception {
    CheckpointStore store = open(2);
    List<StreamPartition> layout = List.of(a(0), a(1), b(0), b(1));
    CheckpointWriter writer = store.writer(0, layout);
    writer.write(new long[] {5, CheckpointStore.NONE, CheckpointStore.NONE, 7});
    assertThat(store.read()).isEqualTo(Map.of(a(0), 5L, b(1), 7L));

    writer.write(new long[] {6, 0, CheckpointStore.NONE, 7});
    assertThat(open(2).read()).isEqualTo(Map.of(a(0), 6L, a(1), 0L, b(1), 7L));
  }

  @Test
  void aSecondWriteReplacesTheFirst() throws Exception {
    CheckpointStore store = open(2);
    List<StreamPartition> layout = List.of(a(0), a(1));
    CheckpointWriter writer = store.writer(0, layout);
    writer.write(new long[] {100, 200});
    writer.write(new long[] {150, 200}); // only partition 0 moved
    writer.write(new long[] {175, 260});
    assertThat(store.read()).isEqualTo(Map.of(a(0), 175L, a(1), 260L));
    assertThat(open(2).read()).isEqualTo(Map.of(a(0), 175L, a(1), 260L));
  }

  @Test
  void aWriterThatNoLongerHoldsAPartitionLeavesItsCheckpointAsItWas() throws Exception {
    CheckpointStore store = open(2);
    store.writer(0, List.of(a(0), a(1))).write(new long[] {5, 6});
    // The container's tasks changed (task 1 went to another container, which has not committed
    // yet): its writer now holds partition 0 only.
    store.writer(0, List.of(a(0))).write(new long[] {7});
    assertThat(store.read()).isEqualTo(Map.of(a(0), 7L, a(1), 6L));
    assertThat(open(2).read()).isEqualTo(Map.of(a(0), 7L, a(1), 6L));
  }

  @Test
  void twoContainersWritersAreReadTogetherAndTheLaterWriteOfAPartitionWins() throws Exception {
    CheckpointStore store = open(4);
    store.writer(0, List.of(a(0), a(2))).write(new long[] {1, 3});
    store.writer(1, List.of(a(1), a(3))).write(new long[] {2, 4});
    assertThat(store.read()).isEqualTo(Map.of(a(0), 1L, a(1), 2L, a(2), 3L, a(3), 4L));

    // Task 2 moved to container 1 (a new container count), which commits it further.
    store.writer(1, List.of(a(1), a(2), a(3))).write(new long[] {2, 30, 4});
    assertThat(store.read()).isEqualTo(Map.of(a(0), 1L, a(1), 2L, a(2), 30L, a(3), 4L));
    assertThat(open(4).read()).isEqualTo(Map.of(a(0), 1L, a(1), 2L, a(2), 30L, a(3), 4L));
  }

  @Test
  void readingSomeTasksGivesOnlyTheirPartitionsOfEveryStream() throws Exception {
    CheckpointStore store = open(3);
    List<StreamPartition> layout = List.of(a(0), b(0), a(1), b(1), a(2), b(2));
    store.writer(0, layout).write(new long[] {10, 20, 11, 21, 12, 22});
    assertThat(store.read(Set.of(1))).isEqualTo(Map.of(a(1), 11L, b(1), 21L));
    assertThat(open(3).read(Set.of(0, 2))).isEqualTo(
        Map.of(a(0), 10L, b(0), 20L, a(2), 12L, b(2), 22L));
    assertThat(store.read(Set.of())).isEmpty();
  }

  @Test
  void aTasksChangelogOffsetsAreReadBackWithItsInputs() throws Exception {
    CheckpointStore store = open(2);
    List<StreamPartition> layout = List.of(a(0), a(1), changelog(0), changelog(1));
    store.writer(0, layout).write(new long[] {10, 11, 400, 0});
    assertThat(open(2).read()).isEqualTo(
        Map.of(a(0), 10L, a(1), 11L, changelog(0), 400L, changelog(1), 0L));
    assertThat(store.read(Set.of(0))).isEqualTo(Map.of(a(0), 10L, changelog(0), 400L));
  }

  @Test
  void manyPartitionsOffsetZeroAndLargeOffsetsRoundTrip() throws Exception {
    int partitions = 64;
    CheckpointStore store = open(partitions);
    List<StreamPartition> layout = new ArrayList<>();
    List<Long> values = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      layout.add(a(p));
      values.add(p == 0 ? 0L : (1L << 50) + p);
      layout.add(b(p));
      values.add(p * 1_000_003L);
      layout.add(changelog(p));
      values.add((long) Integer.MAX_VALUE + p);
    }
    long[] written = values.stream().mapToLong(Long::longValue).toArray();
    CheckpointWriter writer = store.writer(0, layout);
    writer.write(written);
    written[5] += 1; // one more write, one partition moved
    writer.write(written);
    Map<StreamPartition, Long> read = open(partitions).read();
    assertThat(read).hasSize(3 * partitions).isEqualTo(offsets(layout, written));
  }

  @Test
  void aDamagedCheckpointIsACheckpointExceptionSayingWhereNeverAnEmptyRead() throws Exception {
    CheckpointStore store = open(2);
    store.writer(0, List.of(a(0), a(1))).write(new long[] {5, 6});
    damage(a(1));
    assertThatThrownBy(() -> open(2).read()).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(where());
    assertThatThrownBy(() -> open(2).read(Set.of(1))).as("the damaged task read alone")
        .isInstanceOf(CheckpointException.class).hasMessageContaining(where());
  }
}
