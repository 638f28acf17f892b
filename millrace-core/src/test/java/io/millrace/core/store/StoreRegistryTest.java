package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamPartition;
import io.millrace.api.store.KeyValueStore;
import io.millrace.core.store.StoreFixtures.CountingProducer;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.core.store.StoreFixtures.LocalEngines;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store registry: a task's instances are opened detached (no commit sees them), attached,
 * closed; damaged local files are wiped when a changelog can restore them; a standby copy's engine
 * is taken open; a lost task's files lose their mark, a revoked task's keep it.
 */
class StoreRegistryTest {
  private final LocalEngines engines = new LocalEngines();
  private final CountingProducer producer = new CountingProducer();
  @TempDir Path dir;

  @Test
  void aTaskOpenedDetachedJoinsTheCommitsOnlyOnceAttached() {
    StoreRegistry stores = StoreFixtures.registry(List.of(StoreFixtures.logged("counts", engines),
        StoreFixtures.unlogged("cache", engines)), dir, producer, false);
    DetachedStores task = stores.openDetached(3, "Partition 3",
        Map.of(new StreamPartition("log", "changelog:counts", 3), 41L));

    assertThat(task.stores()).containsOnlyKeys("counts", "cache");
    assertThat(task.checkpointed()).containsExactly(41L, CheckpointStore.NONE);
    assertThat(stores.commits().checkpointed()).isEmpty();

    stores.attach(task);
    assertThat(stores.commits().checkpointed())
        .containsExactly(new StreamPartition("log", "changelog:counts", 3));
    stores.close();
  }

  @Test
  void aTasksStoresCannotBeOpenedTwice() {
    StoreRegistry stores = StoreFixtures.registry(
        List.of(StoreFixtures.logged("counts", engines)), dir, producer, false);
    stores.open(0, "Partition 0", Map.of());

    assertThatThrownBy(() -> stores.openDetached(0, "Partition 0", Map.of()))
        .hasMessageContaining("the stores of task Partition 0 are open already");
    stores.close();
  }

  @Test
  void aRevokedTasksFilesKeepTheirMarkAndALostTasksLoseIt() {
    StoreRegistry stores = StoreFixtures.registry(
        List.of(StoreFixtures.logged("counts", engines)), dir, producer, false);
    Path files = dir.resolve("counts").resolve("task-0");
    counts(stores.open(0, "Partition 0", Map.of())).put("k", 1L);
    commit(stores);
    assertThat(LocalOffsetFile.read(files)).isZero();

    stores.closeTask(0, true);
    assertThat(LocalOffsetFile.read(files)).as("revoked after a commit").isZero();

    stores.open(0, "Partition 0", Map.of());
    stores.closeTask(0, false);
    assertThat(LocalOffsetFile.read(files)).as("lost: the files may hold uncommitted writes")
        .isEqualTo(-1);
    assertThat(stores.commits().checkpointed()).isEmpty();
    stores.close();
  }

  @Test
  void damagedLocalFilesAreWipedWhenAChangelogCanRestoreThem() throws Exception {
    Path files = dir.resolve("counts").resolve("task-0");
    Files.createDirectories(files);
    LocalOffsetFile.write(files, 7);
    Files.writeString(files.resolve("data"), "garbage");
    engines.damaged.add(files);
    StoreRegistry stores = StoreFixtures.registry(
        List.of(StoreFixtures.logged("counts", engines)), dir, producer, false);

    DetachedStores task = stores.openDetached(0, "Partition 0", Map.of());

    assertThat(task.instances().get(0).localOffset()).as("restored in full").isEqualTo(-1);
    assertThat(files.resolve("data")).doesNotExist();
    stores.closeDetached(task);
    stores.close();
  }

  @Test
  void damagedLocalFilesWithoutAChangelogStopTheOpenNamingTheDirectory() {
    Path files = dir.resolve("cache").resolve("task-0");
    engines.damaged.add(files);
    StoreRegistry stores = StoreFixtures.registry(
        List.of(StoreFixtures.unlogged("cache", engines)), dir, producer, false);

    assertThatThrownBy(() -> stores.openDetached(0, "Partition 0", Map.of()))
        .hasMessageContaining(files.toString())
        .hasMessageContaining("stores.cache.changelog");
    stores.close();
  }

  @Test
  void aStandbyCopysEngineIsTakenOpenWithTheOffsetItHolds() {
    WatchedEngine copy = new WatchedEngine();
    StoreRegistry stores = StoreFixtures.registry(
        List.of(StoreFixtures.logged("counts", engines)), dir, producer, false);
    Map<String, OpenCopy> handedOver = new HashMap<>(Map.of("counts", new OpenCopy(copy, 99)));

    DetachedStores task = stores.openDetached(0, "Partition 0", Map.of(), handedOver);

    assertThat(handedOver).as("taken: no longer the caller's to close").isEmpty();
    assertThat(task.instances().get(0).localOffset()).isEqualTo(99);
    assertThat(task.instances().get(0).engine()).isSameAs(copy);
    assertThat(engines.opened).as("nothing opened again").isEmpty();
    stores.closeDetached(task);
    stores.close();
  }

  /** A whole commit on this thread: hand-over, checkpoint offsets, marks. */
  private static void commit(StoreRegistry stores) {
    StoreCommitParticipant commits = stores.commits();
    StoreCommitParticipant.Snapshot round = commits.round();
    commits.flush();
    long[] checkpoint = new long[commits.checkpointed().size()];
    round.beforeCheckpoint(checkpoint, 0);
    round.afterCheckpoint(Runnable::run);
  }

  @SuppressWarnings("unchecked")
  private static KeyValueStore<String, Long> counts(Map<String, KeyValueStore<?, ?>> task) {
    return (KeyValueStore<String, Long>) task.get("counts");
  }
}
