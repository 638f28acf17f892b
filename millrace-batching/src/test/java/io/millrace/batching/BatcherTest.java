package io.millrace.batching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class BatcherTest {
  private final ManualLingerScheduler scheduler = new ManualLingerScheduler();
  private final RecordingCall call = new RecordingCall();

  /** A BatchCall that only records each batch, so the test completes its requests by hand. */
  static final class RecordingCall implements BatchCall<String, String> {
    final List<List<String>> batches = new CopyOnWriteArrayList<>();
    final List<BatchResults<String>> results = new CopyOnWriteArrayList<>();
    final List<Thread> threads = new CopyOnWriteArrayList<>();

    @Override
    public void call(List<String> requests, BatchResults<String> batchResults) {
      batches.add(requests);
      results.add(batchResults);
      threads.add(Thread.currentThread());
    }

    /** Completes every request of batch {@code n} with its request, upper-cased. */
    void answer(int n) {
      List<String> requests = batches.get(n);
      for (int i = 0; i < requests.size(); i++) {
        results.get(n).complete(i, requests.get(i).toUpperCase());
      }
    }
  }

  private Batcher<String, String> batcher(int maxSize, Duration maxLinger) {
    return Batcher.builder(call).maxSize(maxSize).maxLinger(maxLinger).scheduler(scheduler).build();
  }

  private static List<CompletableFuture<String>> submitAll(
      Batcher<String, String> batcher, String... requests) {
    List<CompletableFuture<String>> futures = new ArrayList<>();
    for (String request : requests) {
      futures.add(batcher.submit(request));
    }
    return futures;
  }

  @Test
  void aBatchLeavesOnTheSubmittingThreadWhenItReachesMaxSize() {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));

    submitAll(batcher, "a", "b");
    assertThat(call.batches).isEmpty();
    assertThat(batcher.pending()).isEqualTo(2);

    submitAll(batcher, "c");
    assertThat(call.batches).containsExactly(List.of("a", "b", "c"));
    assertThat(call.threads).containsExactly(Thread.currentThread());
    assertThat(batcher.pending()).isZero();
    assertThat(batcher.batchesSent()).isEqualTo(1);
    assertThat(batcher.requestsSent()).isEqualTo(3);

    submitAll(batcher, "d", "e", "f", "g");
    assertThat(call.batches).containsExactly(List.of("a", "b", "c"), List.of("d", "e", "f"));
    assertThat(batcher.pending()).isEqualTo(1);
  }

  @Test
  void aBatchLeavesWhenMaxLingerHasPassedSinceItsFirstRequestAndNotBefore() {
    Batcher<String, String> batcher = batcher(10, Duration.ofMillis(5));

    batcher.submit("a");
    scheduler.advance(Duration.ofMillis(3));
    batcher.submit("b"); // a later request does not restart the clock
    scheduler.advance(Duration.ofMillis(2).minusNanos(1));
    assertThat(call.batches).isEmpty();

    scheduler.advance(Duration.ofNanos(1));
    assertThat(call.batches).containsExactly(List.of("a", "b"));
    assertThat(batcher.batchesSent()).isEqualTo(1);

    // The next batch gets its own timer from its own first request.
    scheduler.advance(Duration.ofMillis(10));
    batcher.submit("c");
    scheduler.advance(Duration.ofMillis(4));
    assertThat(call.batches).hasSize(1);
    scheduler.advance(Duration.ofMillis(1));
    assertThat(call.batches).containsExactly(List.of("a", "b"), List.of("c"));
  }

  @Test
  void flushSendsAPartialBatchOnTheCallingThread() {
    Batcher<String, String> batcher = batcher(10, Duration.ofSeconds(1));
    submitAll(batcher, "a", "b");

    batcher.flush();

    assertThat(call.batches).containsExactly(List.of("a", "b"));
    assertThat(call.threads).containsExactly(Thread.currentThread());
    assertThat(batcher.requestsSent()).isEqualTo(2);
    assertThat(scheduler.live()).as("the flushed batch's timer is cancelled").isZero();
  }

  @Test
  void flushWithNothingWaitingSendsNothing() {
    Batcher<String, String> batcher = batcher(10, Duration.ofSeconds(1));

    batcher.flush();

    assertThat(call.batches).isEmpty();
    assertThat(batcher.batchesSent()).isZero();
  }

  @Test
  void eachRequestGetsItsOwnResultByIndexWhateverTheOrderOfCompletion() throws Exception {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));
    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b", "c");
    BatchResults<String> results = call.results.get(0);
    assertThat(results.size()).isEqualTo(3);

    results.complete(2, "result c");
    assertThat(futures.get(2)).isCompletedWithValue("result c");
    assertThat(futures.get(0)).isNotDone();
    results.fail(1, new IOException("b is missing"));
    results.complete(0, "result a");

    assertThat(futures.get(0)).isCompletedWithValue("result a");
    assertThatThrownBy(() -> futures.get(1).get())
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IOException.class)
        .hasRootCauseMessage("b is missing");
  }

  @Test
  void theCompletionIsToldTheResultOrTheError() {
    Batcher<String, String> batcher = batcher(2, Duration.ofSeconds(1));
    List<String> told = new ArrayList<>();
    batcher.submit("a", (result, error) -> told.add("a: " + result + ", " + error));
    batcher.submit("b", (result, error) -> told.add("b: " + result + ", " + error));

    call.results.get(0).complete(0, "A");
    call.results.get(0).fail(1, new IllegalArgumentException("no b"));

    assertThat(told)
        .containsExactly("a: A, null", "b: null, java.lang.IllegalArgumentException: no b");
  }

  @Test
  void theBatchCallGetsTheRequestsInSubmitOrderAsAnUnmodifiableList() {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));
    submitAll(batcher, "c", "a", "b");

    List<String> requests = call.batches.get(0);
    assertThat(requests).containsExactly("c", "a", "b");
    assertThatThrownBy(() -> requests.add("d")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aBatchCallThatThrowsFailsEveryRequestOfItsBatchNotYetCompleted() {
    IllegalStateException down = new IllegalStateException("service down");
    Batcher<String, String> batcher =
        Batcher.<String, String>builder(
                (requests, results) -> {
                  results.complete(0, "done before the throw");
                  throw down;
                })
            .maxSize(3)
            .scheduler(scheduler)
            .build();

    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b", "c");

    assertThat(futures.get(0)).isCompletedWithValue("done before the throw");
    for (CompletableFuture<String> future : futures.subList(1, 3)) {
      assertThat(future).isCompletedExceptionally();
      assertThatThrownBy(future::join).hasCause(down);
    }
    // The batcher goes on working after a failed call.
    submitAll(batcher, "d");
    assertThat(batcher.pending()).isEqualTo(1);
  }

  @Test
  void aBatchCallThrowingACheckedExceptionFailsItsRequestsWithIt() {
    IOException refused = new IOException("connection refused");
    Batcher<String, String> batcher =
        Batcher.<String, String>builder(
                (requests, results) -> {
                  throw refused;
                })
            .scheduler(scheduler)
            .build();
    CompletableFuture<String> future = batcher.submit("a");

    batcher.flush();

    assertThatThrownBy(future::join).hasCause(refused);
  }

  @Test
  void failAllFailsTheRequestsNotYetCompletedAndKeepsTheOthers() {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));
    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b", "c");
    BatchResults<String> results = call.results.get(0);
    IOException timeout = new IOException("timed out");

    results.complete(1, "B");
    results.failAll(timeout);
    results.failAll(new IOException("a second failAll changes nothing"));

    assertThat(futures.get(1)).isCompletedWithValue("B");
    assertThatThrownBy(futures.get(0)::join).hasCause(timeout);
    assertThatThrownBy(futures.get(2)::join).hasCause(timeout);
  }

  @Test
  void completingARequestTwiceThrowsNamingTheIndex() {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));
    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b", "c");
    BatchResults<String> results = call.results.get(0);

    results.complete(2, "C");
    assertThatThrownBy(() -> results.complete(2, "C again"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 2 ");
    assertThatThrownBy(() -> results.fail(2, new IOException()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 2 ");
    results.failAll(new IOException("rest"));
    assertThatThrownBy(() -> results.complete(0, "A"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("request 0 ");
    assertThatThrownBy(() -> results.complete(3, "no such request"))
        .isInstanceOf(IndexOutOfBoundsException.class);

    assertThat(futures.get(2)).isCompletedWithValue("C");
  }

  @Test
  void closeSendsWhatWaitsThenRefusesSubmits() {
    Batcher<String, String> batcher = batcher(10, Duration.ofSeconds(1));
    submitAll(batcher, "a", "b");

    batcher.close();

    assertThat(call.batches).containsExactly(List.of("a", "b"));
    assertThatThrownBy(() -> batcher.submit("c"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> batcher.submit("c", (result, error) -> {}))
        .isInstanceOf(IllegalStateException.class);
    batcher.close();
    batcher.flush();
    scheduler.advance(Duration.ofSeconds(2));
    assertThat(call.batches).hasSize(1);
  }

  @Test
  void batchesSentBeforeCloseStillComplete() {
    Batcher<String, String> batcher = batcher(10, Duration.ofSeconds(1));
    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b");
    batcher.close();

    call.answer(0);

    assertThat(futures).extracting(CompletableFuture::join).containsExactly("A", "B");
  }

  @Test
  void aStaleLingerTimerAfterASizeTriggeredSendDoesNothing() {
    Batcher<String, String> batcher = batcher(2, Duration.ofMillis(5));
    submitAll(batcher, "a", "b"); // full: sent at once, its timer is now stale
    ManualLingerScheduler.Timer staleTimer = scheduler.timers().get(0);
    scheduler.advance(Duration.ofMillis(1));
    submitAll(batcher, "c"); // the next batch, with its own timer due at 6 ms

    // The stale timer runs anyway, as if its cancel came too late.
    scheduler.fireAnyway(staleTimer);

    assertThat(call.batches).containsExactly(List.of("a", "b"));
    assertThat(batcher.pending()).isEqualTo(1);
    assertThat(batcher.batchesSent()).isEqualTo(1);

    scheduler.advance(Duration.ofMillis(5));
    assertThat(call.batches).containsExactly(List.of("a", "b"), List.of("c"));
  }

  @Test
  void aSizeTriggeredSendCancelsItsLingerTimer() {
    Batcher<String, String> batcher = batcher(2, Duration.ofMillis(5));

    submitAll(batcher, "a", "b");

    assertThat(scheduler.timers()).hasSize(1);
    assertThat(scheduler.timers().get(0).cancelled).isTrue();
  }

  @Test
  void withMaxSizeOneEveryRequestLeavesAloneWithoutATimer() {
    Batcher<String, String> batcher = batcher(1, Duration.ofMillis(5));

    submitAll(batcher, "a", "b");

    assertThat(call.batches).containsExactly(List.of("a"), List.of("b"));
    assertThat(scheduler.timers()).isEmpty();
  }

  @Test
  void theBatchCallRunsOutsideTheLockSoAnotherThreadCanSubmitMeanwhile() throws Exception {
    List<Thread> helpers = new ArrayList<>();
    AtomicReference<Batcher<String, String>> self = new AtomicReference<>();
    self.set(
        Batcher.<String, String>builder(
                (requests, results) -> {
                  call.call(requests, results);
                  if (requests.get(0).equals("a")) {
                    Thread helper = new Thread(() -> self.get().submit("from another thread"));
                    helper.start();
                    helpers.add(helper);
                    helper.join(TimeUnit.SECONDS.toMillis(5));
                  }
                })
            .maxSize(1)
            .scheduler(scheduler)
            .build());

    self.get().submit("a");

    assertThat(helpers.get(0).isAlive()).as("the helper was blocked by the lock").isFalse();
    assertThat(call.batches).containsExactly(List.of("a"), List.of("from another thread"));
  }

  @Test
  void aCompletionThatThrowsDoesNotKeepTheOthersFromBeingTold() {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));
    RuntimeException oops = new RuntimeException("oops");
    CompletableFuture<String> first = batcher.submit("a");
    batcher.submit(
        "b",
        (result, error) -> {
          throw oops;
        });
    CompletableFuture<String> third = batcher.submit("c");
    List<Throwable> reported = new ArrayList<>();
    Thread thread = Thread.currentThread();
    Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
    thread.setUncaughtExceptionHandler((t, e) -> reported.add(e));
    try {
      call.results.get(0).failAll(new IOException("down"));
    } finally {
      thread.setUncaughtExceptionHandler(previous);
    }

    assertThat(first).isCompletedExceptionally();
    assertThat(third).isCompletedExceptionally();
    assertThat(reported).containsExactly(oops);
  }

  @Test
  void theBuilderRejectsBadSettings() {
    Batcher.Builder<String, String> builder = Batcher.builder(call);

    assertThatThrownBy(() -> builder.maxSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxSize");
    assertThatThrownBy(() -> builder.maxLinger(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxLinger");
    assertThatThrownBy(() -> builder.scheduler(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Batcher.builder(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void theDefaultsAre100RequestsAnd5Milliseconds() {
    Batcher<String, String> batcher = Batcher.builder(call).build();

    assertThat(batcher.maxSize()).isEqualTo(100);
    assertThat(batcher.maxLinger()).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void aHugeLingerIsAccepted() {
    Batcher<String, String> batcher =
        Batcher.builder(call).maxLinger(Duration.ofDays(365L * 1000)).scheduler(scheduler).build();
    batcher.submit("a");

    scheduler.advance(Duration.ofDays(365));

    assertThat(call.batches).isEmpty();
  }

  @Test
  void withTheSharedSchedulerALoneRequestLeavesAfterTheLinger() throws Exception {
    Batcher<String, String> batcher =
        Batcher.<String, String>builder(
                (requests, results) -> {
                  call.call(requests, results);
                  results.complete(0, "answered");
                })
            .maxLinger(Duration.ofMillis(1))
            .build();

    CompletableFuture<String> future = batcher.submit("a");

    assertThat(future.get(2, TimeUnit.MINUTES)).isEqualTo("answered"); // a busy machine's deadline
    assertThat(call.threads.get(0).getName()).isEqualTo("millrace-batcher-linger");
    assertThat(call.threads.get(0).isDaemon()).isTrue();
  }

  @Test
  void aSchedulerThatCannotScheduleMakesTheBatchLeaveAtOnce() {
    Thread thread = Thread.currentThread();
    Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
    List<Throwable> reported = new ArrayList<>();
    thread.setUncaughtExceptionHandler((t, e) -> reported.add(e));
    try {
      Batcher<String, String> batcher =
          Batcher.builder(call)
              .scheduler(
                  (task, delayNanos) -> {
                    throw new IllegalStateException("scheduler shut down");
                  })
              .build();

      batcher.submit("a");

      assertThat(call.batches).containsExactly(List.of("a"));
      assertThat(reported).singleElement().hasFieldOrPropertyWithValue(
          "message", "scheduler shut down");
    } finally {
      thread.setUncaughtExceptionHandler(previous);
    }
  }

  @Test
  void nullRequestsAndCompletionsAreRefused() {
    Batcher<String, String> batcher = batcher(3, Duration.ofSeconds(1));

    assertThatThrownBy(() -> batcher.submit(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> batcher.submit("a", null)).isInstanceOf(NullPointerException.class);
    assertThat(batcher.pending()).isZero();
  }

  private Batcher<String, String> limited(int maxSize, Duration maxLinger, int maxInFlight) {
    return Batcher.builder(call).maxSize(maxSize).maxLinger(maxLinger).maxInFlight(maxInFlight)
        .scheduler(scheduler).build();
  }

  @Test
  void atMaxInFlightNeitherLingerNorFlushSendsAndTheOpenBatchKeepsFilling() {
    Batcher<String, String> batcher = limited(3, Duration.ofMillis(5), 1);
    batcher.submit("a");
    batcher.flush();
    assertThat(call.batches).containsExactly(List.of("a"));
    assertThat(batcher.inFlight()).isEqualTo(1);

    submitAll(batcher, "b", "c");
    scheduler.advance(Duration.ofMillis(10));
    batcher.flush();

    assertThat(call.batches).hasSize(1);
    assertThat(batcher.pending()).isEqualTo(2);
  }

  @Test
  void aReturningBatchSendsTheOpenOneOnTheCompletingThread() {
    Batcher<String, String> batcher = limited(3, Duration.ofMillis(5), 1);
    batcher.submit("a");
    batcher.flush();
    submitAll(batcher, "b", "c");

    call.answer(0);

    assertThat(call.batches).containsExactly(List.of("a"), List.of("b", "c"));
    assertThat(batcher.inFlight()).isEqualTo(1);
    assertThat(batcher.pending()).isZero();
  }

  @Test
  void fullBatchesWaitInOrderForASlotBeforeTheOpenOne() {
    Batcher<String, String> batcher = limited(2, Duration.ofMillis(5), 1);
    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b", "c", "d", "e", "f", "g");
    assertThat(call.batches).containsExactly(List.of("a", "b"));
    assertThat(batcher.pending()).isEqualTo(5);

    call.answer(0);
    assertThat(call.batches).containsExactly(List.of("a", "b"), List.of("c", "d"));
    call.answer(1);
    call.answer(2);
    assertThat(call.batches).containsExactly(
        List.of("a", "b"), List.of("c", "d"), List.of("e", "f"), List.of("g"));
    call.answer(3);

    assertThat(futures).allSatisfy(f -> assertThat(f).isCompleted());
    assertThat(batcher.inFlight()).isZero();
    assertThat(batcher.batchesSent()).isEqualTo(4);
    assertThat(batcher.requestsSent()).isEqualTo(7);
  }

  @Test
  void aBatchReturnsOnlyWhenEveryRequestIsToldEvenByFailures() {
    Batcher<String, String> batcher = limited(2, Duration.ofMillis(5), 1);
    submitAll(batcher, "a", "b", "c");

    call.results.get(0).complete(1, "B");
    assertThat(call.batches).hasSize(1);
    call.results.get(0).failAll(new IOException("down"));

    assertThat(call.batches).containsExactly(List.of("a", "b"), List.of("c"));
  }

  @Test
  void aFailingBatchCallFreesItsSlot() {
    AtomicReference<Integer> calls = new AtomicReference<>(0);
    Batcher<String, String> batcher = Batcher.<String, String>builder((requests, results) -> {
      calls.set(calls.get() + 1);
      throw new IOException("refused");
    }).maxSize(1).maxInFlight(1).scheduler(scheduler).build();

    List<CompletableFuture<String>> futures = submitAll(batcher, "a", "b", "c");

    assertThat(calls.get()).isEqualTo(3);
    assertThat(futures).allSatisfy(f -> assertThat(f).isCompletedExceptionally());
    assertThat(batcher.inFlight()).isZero();
  }

  @Test
  void closeSendsHeldBackBatchesWhateverIsInFlight() {
    Batcher<String, String> batcher = limited(2, Duration.ofMillis(5), 1);
    submitAll(batcher, "a", "b", "c", "d", "e");

    batcher.close();

    assertThat(call.batches).containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
    assertThat(batcher.pending()).isZero();
  }

  @Test
  void maxInFlightMustBeAtLeastOne() {
    assertThatThrownBy(() -> Batcher.builder(call).maxInFlight(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInFlight");
  }
}
