package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.store.KeyValueStore;
import io.millrace.core.store.StoreFixtures.CountingProducer;
import io.millrace.core.store.StoreFixtures.LocalEngines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks opened detached on one thread (the state updater's, for a container) while the loop's thread
 * attaches them, writes, commits and closes others: every commit's layout is the stores' own, no
 * open is refused for a task that is not open, and the registry ends empty.
 */
class StoreRegistryStressTest {
  private static final int TASKS = 1_000;
  private static final int STOP = -1;
  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void tasksOpenedOffTheLoopWhileTheLoopAttachesCommitsAndClosesOthers() throws Exception {
    StoreRegistry stores = StoreFixtures.registry(List.of(
            StoreFixtures.logged("counts", new LocalEngines()),
            StoreFixtures.unlogged("cache", new LocalEngines())),
        dir, new CountingProducer(), false);
    BlockingQueue<DetachedStores> opened = new LinkedBlockingQueue<>(16);
    BlockingQueue<Integer> closed = new LinkedBlockingQueue<>();
    // The restoring thread: opens task n once the loop closed task n - 64 (numbers are reused, as
    // tasks come back), and hands it over.
    CompletableFuture<Void> restoring = CompletableFuture.runAsync(() -> {
      try {
        for (int n = 0; n < TASKS; n++) {
          if (n >= 64) {
            closed.take();
          }
          opened.put(stores.openDetached(n % 128, "Partition " + n, Map.of()));
        }
        opened.put(new DetachedStores(STOP, List.of(), new long[0]));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });

    List<Integer> running = new ArrayList<>();
    int commits = 0;
    for (DetachedStores task = opened.take(); task.taskNumber() != STOP; task = opened.take()) {
      stores.attach(task);
      running.add(task.taskNumber());
      counts(task).put("k" + task.taskNumber(), (long) commits);
      StoreCommitParticipant.Snapshot round = stores.commits().round();
      stores.commits().flush();
      long[] checkpoint = new long[stores.commits().checkpointed().size()];
      round.beforeCheckpoint(checkpoint, 0);
      round.afterCheckpoint(Runnable::run);
      commits++;
      if (running.size() > 32) {
        int leaving = running.remove(0);
        stores.closeTask(leaving, commits % 2 == 0);
        closed.put(leaving);
      }
    }
    restoring.get(60, TimeUnit.SECONDS);
    for (int n : running) {
      stores.closeTask(n, true);
    }

    assertThat(commits).isEqualTo(TASKS);
    assertThat(stores.commits().checkpointed()).isEmpty();
    stores.close();
  }

  @SuppressWarnings("unchecked")
  private static KeyValueStore<String, Long> counts(DetachedStores task) {
    return (KeyValueStore<String, Long>) task.stores().get("counts");
  }
}
