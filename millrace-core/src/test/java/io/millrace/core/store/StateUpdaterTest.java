package io.millrace.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.core.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The state updater's restores: one after another on its one thread, in the order they came; one
 * withdrawn before it began never runs; a failure is its own restore's; closing ends those that
 * never ran.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StateUpdaterTest {
  private final StateUpdater updater = new StateUpdater(null, "state-updater-test");

  @AfterEach
  void close() {
    updater.close();
  }

  @Test
  void restoresRunOneAfterAnotherOnOneThreadInTheOrderTheyCame() throws Exception {
    CountDownLatch firstMayEnd = new CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    CompletableFuture<Void> first = updater.restore(() -> {
      threads.add(Thread.currentThread().getName());
      await(firstMayEnd);
      ran.add("first");
    });
    CompletableFuture<Void> second = updater.restore(() -> {
      threads.add(Thread.currentThread().getName());
      ran.add("second");
    });
    CompletableFuture<Void> third = updater.restore(() -> ran.add("third"));

    assertThat(ran).as("the others wait for the first").isEmpty();
    firstMayEnd.countDown();
    CompletableFuture.allOf(first, second, third).get(60, TimeUnit.SECONDS);

    assertThat(ran).containsExactly("first", "second", "third");
    assertThat(threads).containsExactly("state-updater-test");
  }

  @Test
  void aRestoreWithdrawnBeforeItBeganNeverRuns() throws Exception {
    CountDownLatch firstBegan = new CountDownLatch(1);
    CountDownLatch firstMayEnd = new CountDownLatch(1);
    AtomicInteger secondRan = new AtomicInteger();
    CompletableFuture<Void> first = updater.restore(() -> {
      firstBegan.countDown();
      await(firstMayEnd);
    });
    CompletableFuture<Void> second = updater.restore(secondRan::incrementAndGet);
    assertThat(firstBegan.await(60, TimeUnit.SECONDS)).isTrue();

    assertThat(updater.withdraw(first)).as("begun: not withdrawn").isFalse();
    assertThat(updater.withdraw(second)).isTrue();
    assertThat(second).isDone();
    firstMayEnd.countDown();
    first.get(60, TimeUnit.SECONDS);
    updater.restore(() -> { }).get(60, TimeUnit.SECONDS); // everything before it has run

    assertThat(secondRan).hasValue(0);
  }

  @Test
  void aRestoreThatFailsEndsWithItsFailureAndTheNextStillRuns() throws Exception {
    CompletableFuture<Void> failing = updater.restore(() -> {
      throw new IllegalStateException("the changelog's head is gone");
    });
    CompletableFuture<Void> next = updater.restore(() -> { });

    assertThatThrownBy(() -> failing.get(60, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("the changelog's head is gone");
    next.get(60, TimeUnit.SECONDS);
  }

  @Test
  void closingEndsTheRestoresThatNeverRanAndRefusesNewOnes() throws Exception {
    CountDownLatch firstBegan = new CountDownLatch(1);
    CountDownLatch firstMayEnd = new CountDownLatch(1);
    AtomicInteger secondRan = new AtomicInteger();
    CompletableFuture<Void> first = updater.restore(() -> {
      firstBegan.countDown();
      await(firstMayEnd);
    });
    CompletableFuture<Void> second = updater.restore(secondRan::incrementAndGet);
    assertThat(firstBegan.await(60, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Void> closed = CompletableFuture.runAsync(updater::close);
    Await.until(Duration.ofSeconds(60), "the updater closing (it refuses new restores)",
        () -> updater.restore(() -> { }).isCompletedExceptionally());
    firstMayEnd.countDown(); // the one running ends; then the thread stops
    closed.get(60, TimeUnit.SECONDS);

    first.get(60, TimeUnit.SECONDS);
    assertThatThrownBy(() -> second.get(60, TimeUnit.SECONDS))
        .hasMessageContaining("the state updater closed");
    assertThat(secondRan).hasValue(0);
    assertThat(updater.restore(() -> { })).isCompletedExceptionally();
  }

  @Test
  void stressRestoresPostedAndWithdrawnFromManyThreadsRunOnceEachAndInTheirOrder()
      throws Exception {
    int posters = 8;
    int each = 500;
    Map<Integer, List<Integer>> ranByPoster = new ConcurrentHashMap<>();
    Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    Set<Integer> withdrawn = ConcurrentHashMap.newKeySet();
    List<CompletableFuture<Void>> postersDone = new ArrayList<>();
    List<CompletableFuture<Void>> restores = new CopyOnWriteArrayList<>();
    for (int p = 0; p < posters; p++) {
      int poster = p;
      ranByPoster.put(poster, new CopyOnWriteArrayList<>());
      postersDone.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < each; i++) {
          int id = poster * each + i;
          int n = i;
          CompletableFuture<Void> done = updater.restore(() -> {
            runs.computeIfAbsent(id, x -> new AtomicInteger()).incrementAndGet();
            ranByPoster.get(poster).add(n);
          });
          restores.add(done);
          if (ThreadLocalRandom.current().nextInt(4) == 0 && updater.withdraw(done)) {
            withdrawn.add(id);
          }
        }
      }));
    }
    CompletableFuture.allOf(postersDone.toArray(CompletableFuture[]::new))
        .get(60, TimeUnit.SECONDS);
    CompletableFuture.allOf(restores.toArray(CompletableFuture[]::new))
        .get(60, TimeUnit.SECONDS);

    for (int id = 0; id < posters * each; id++) {
      int ran = runs.containsKey(id) ? runs.get(id).get() : 0;
      assertThat(ran).as("restore %d ran once, or was withdrawn and never ran", id)
          .isEqualTo(withdrawn.contains(id) ? 0 : 1);
    }
    for (List<Integer> ran : ranByPoster.values()) {
      assertThat(ran).isSorted();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never let the restore end");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
