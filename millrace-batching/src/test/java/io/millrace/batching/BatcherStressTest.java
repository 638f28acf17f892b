package io.millrace.batching;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BatcherStressTest {
  private static final int THREADS = 8;
  private static final int TOTAL = 100_000;
  private static final int PER_THREAD = TOTAL / THREADS;
  private static final int MAX_SIZE = 64;

  private static long answer(int request) {
    return request * 3L + 1;
  }

  /** maxInFlight 0 means no limit. */
  @ParameterizedTest(name = "maxInFlight {0}")
  @ValueSource(ints = {0, 2})
  void eightThreadsSubmitting100kRequestsEachGetTheirOwnValueExactlyOnce(int maxInFlight)
      throws Exception {
    ExecutorService remote =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, "remote-service");
              thread.setDaemon(true);
              return thread;
            });
    ConcurrentLinkedQueue<Integer> batchSizes = new ConcurrentLinkedQueue<>();
    AtomicInteger out = new AtomicInteger();
    AtomicInteger mostOut = new AtomicInteger();
    // The real shared scheduler, with a short linger: timers race with size-triggered sends and
    // with flushes.
    Batcher.Builder<Integer, Long> builder =
        Batcher.<Integer, Long>builder(
                (requests, results) -> {
                  batchSizes.add(requests.size());
                  mostOut.accumulateAndGet(out.incrementAndGet(), Math::max);
                  remote.execute(
                      () -> {
                        out.decrementAndGet(); // before the last completion frees its slot
                        // Complete in reverse index order: results go by index, not by order.
                        for (int i = requests.size() - 1; i >= 0; i--) {
                          results.complete(i, answer(requests.get(i)));
                        }
                      });
                })
            .maxSize(MAX_SIZE)
            .maxLinger(Duration.ofNanos(200_000));
    if (maxInFlight > 0) {
      builder.maxInFlight(maxInFlight);
    }
    Batcher<Integer, Long> batcher = builder.build();

    AtomicIntegerArray timesDone = new AtomicIntegerArray(TOTAL);
    AtomicInteger wrong = new AtomicInteger();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    CountDownLatch allDone = new CountDownLatch(TOTAL);
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Thread> submitters = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int first = t * PER_THREAD;
      boolean flusher = t == 0;
      Thread submitter =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (Exception e) {
                  firstError.compareAndSet(null, e);
                  return;
                }
                for (int request = first; request < first + PER_THREAD; request++) {
                  int expected = request;
                  batcher.submit(
                      request,
                      (result, error) -> {
                        if (error != null) {
                          firstError.compareAndSet(null, error);
                        } else if (result == null || result != answer(expected)) {
                          wrong.incrementAndGet();
                        }
                        timesDone.incrementAndGet(expected);
                        allDone.countDown();
                      });
                  if (flusher && request % 1000 == 0) {
                    batcher.flush(); // like a loop thread that is idle now and then
                  }
                }
              },
              "submitter-" + t);
      submitters.add(submitter);
      submitter.start();
    }
    for (Thread submitter : submitters) {
      submitter.join(TimeUnit.MINUTES.toMillis(2)); // a deadline for a busy machine
    }
    batcher.flush();

    assertThat(allDone.await(2, TimeUnit.MINUTES)).as("every request completed").isTrue();
    remote.shutdown();
    assertThat(remote.awaitTermination(2, TimeUnit.MINUTES)).isTrue();

    assertThat(firstError.get()).isNull();
    assertThat(wrong.get()).as("requests told another request's value").isZero();
    for (int i = 0; i < TOTAL; i++) {
      if (timesDone.get(i) != 1) {
        throw new AssertionError("request " + i + " completed " + timesDone.get(i) + " times");
      }
    }
    assertThat(batcher.pending()).isZero();
    assertThat(batcher.requestsSent()).isEqualTo(TOTAL);
    assertThat(batcher.batchesSent()).isEqualTo(batchSizes.size());
    assertThat(batchSizes.stream().mapToLong(Integer::longValue).sum()).isEqualTo(TOTAL);
    assertThat(batchSizes).allSatisfy(size -> assertThat(size).isBetween(1, MAX_SIZE));
    assertThat(batcher.batchesSent()).isGreaterThanOrEqualTo((TOTAL + MAX_SIZE - 1) / MAX_SIZE);
    if (maxInFlight > 0) {
      assertThat(mostOut.get()).as("batches out at once").isLessThanOrEqualTo(maxInFlight);
    }
    System.out.printf(
        "stress: %d requests in %d batches, mean size %.1f%n",
        batcher.requestsSent(),
        batcher.batchesSent(),
        (double) batcher.requestsSent() / batcher.batchesSent());
  }
}
