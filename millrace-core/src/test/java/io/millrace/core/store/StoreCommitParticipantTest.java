package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.store.KeyValueStore;
import io.millrace.core.serde.LongSerde;
import io.millrace.core.store.StoreFixtures.CountingProducer;
import io.millrace.core.store.StoreFixtures.LocalEngines;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stores' part in a commit: a commit works on the round it began with while tasks come, the
 * checkpoint layout must be the stores' own, files are marked only once the checkpoint is
 * written, and under exactly-once an engine holds a write only once its transaction committed.
 */
class StoreCommitParticipantTest {
  private final LocalEngines engines = new LocalEngines();
  private final CountingProducer producer = new CountingProducer();
  @TempDir Path dir;

  @Test
  void aCommitKeepsTheRoundItBeganWithWhileATaskArrives() {
    StoreRegistry stores = registry(false);
    StoreCommitParticipant commits = stores.commits();
    counts(stores.open(0, "Partition 0", Map.of())).put("a", 1L);
    StoreCommitParticipant.Snapshot begun = commits.round();
    assertThat(commits.round()).as("the same until the stores change").isSameAs(begun);
    commits.flush();

    counts(stores.open(1, "Partition 1", Map.of())).put("b", 2L); // arrives meanwhile
    long[] checkpoint = new long[1];
    begun.beforeCheckpoint(checkpoint, 0);

    assertThat(checkpoint).containsExactly(0L);
    assertThat(commits.round()).isNotSameAs(begun);
    assertThat(commits.checkpointed()).hasSize(2);
    stores.close();
  }

  @Test
  void aCheckpointLayoutThatIsNotTheStoresOwnIsRefused() {
    StoreRegistry stores = registry(false);
    stores.open(0, "Partition 0", Map.of());

    assertThatThrownBy(() -> stores.commits().round().beforeCheckpoint(new long[3], 1))
        .hasMessageContaining("the checkpoint layout holds 2 changelog partitions, the stores 1");
    stores.close();
  }

  @Test
  void filesAreMarkedOnlyOnceTheCheckpointIsWritten() {
    StoreRegistry stores = registry(false);
    StoreCommitParticipant commits = stores.commits();
    KeyValueStore<String, Long> counts = counts(stores.open(0, "Partition 0", Map.of()));
    Path files = dir.resolve("counts").resolve("task-0");
    counts.put("a", 1L);
    counts.put("b", 2L);
    StoreCommitParticipant.Snapshot round = commits.round();
    commits.flush();
    long[] checkpoint = new long[1];

    round.beforeCheckpoint(checkpoint, 0);
    assertThat(checkpoint).containsExactly(1L);
    assertThat(LocalOffsetFile.read(files)).as("not before the checkpoint is written")
        .isEqualTo(-1);

    round.afterCheckpoint(Runnable::run);
    assertThat(LocalOffsetFile.read(files)).isEqualTo(1);
    stores.close();
  }

  @Test
  void underExactlyOnceAnEngineHoldsAWriteOnlyOnceItsTransactionCommitted() {
    StoreRegistry stores = registry(true);
    StoreCommitParticipant commits = stores.commits();
    KeyValueStore<String, Long> counts = counts(stores.open(0, "Partition 0", Map.of()));
    WatchedEngine engine = engines.opened.get(dir.resolve("counts").resolve("task-0"));
    counts.put("a", 1L);
    StoreCommitParticipant.Snapshot round = commits.round();
    commits.flush();
    round.beforeCheckpoint(new long[1], 0);
    assertThat(engine.get(key("a"))).as("staged, not applied").isNull();
    assertThat(counts.get("a")).as("the task reads its own write").isEqualTo(1L);

    commits.seal(); // the transaction commits
    round.afterCheckpoint(Runnable::run);

    assertThat(engine.get(key("a"))).isEqualTo(new LongSerde().toBytes(1L));
    assertThat(LocalOffsetFile.read(dir.resolve("counts").resolve("task-0")))
        .as("the first mark is due at once").isZero();
    stores.close();
  }

  private StoreRegistry registry(boolean exactlyOnce) {
    return StoreFixtures.registry(List.of(StoreFixtures.logged("counts", engines)), dir,
        producer, exactlyOnce);
  }

  private static byte[] key(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  @SuppressWarnings("unchecked")
  private static KeyValueStore<String, Long> counts(Map<String, KeyValueStore<?, ?>> task) {
    return (KeyValueStore<String, Long>) task.get("counts");
  }
}
