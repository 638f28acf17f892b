package io.millrace.core.async;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.TaskCallback;
import io.millrace.core.job.LocalRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many callbacks in flight, completed by many threads at once: 200,000 messages over 4 partitions,
 * task.max.concurrency=1000, 8 completer threads.
 */
class AsyncStressTest {
  private static final int PARTITIONS = 4;
  private static final int PER_PARTITION = 50_000;
  private static final int COMPLETERS = 8;
  private static final int KEYS = 100;

  @TempDir Path tmp;
  private AsyncJob job;
  private final List<Thread> completers = new ArrayList<>();

  static volatile Stress stress;

  /** The queue the task hands callbacks to, and what the completers saw. */
  static final class Stress {
    final LinkedBlockingQueue<Item> queue = new LinkedBlockingQueue<>();
    final AtomicIntegerArray[] processed = new AtomicIntegerArray[PARTITIONS];
    final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger maxQueued = new AtomicInteger();
    final boolean keyOrdered;
    /** Per "partition/key": whether a message is in flight, and the last offset completed. */
    final Map<String, AtomicInteger> inFlightByKey = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> lastCompletedByKey = new ConcurrentHashMap<>();

    Stress(boolean keyOrdered) {
      this.keyOrdered = keyOrdered;
      for (int p = 0; p < PARTITIONS; p++) {
        processed[p] = new AtomicIntegerArray(PER_PARTITION);
      }
    }

    void error(String message) {
      if (errors.size() < 20) {
        errors.add(new AssertionError(message));
      }
    }
  }

  record Item(Envelope envelope, Collector collector, TaskCallback callback) {}

  /** Queues every callback; the completer threads send the output and complete it. */
  public static final class QueueingTask implements AsyncStreamTask {
    @Override
    public void processAsync(
        Envelope e, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
      Stress s = stress;
      if (s.processed[e.partition()].incrementAndGet((int) e.offset()) != 1) {
        s.error("processed twice: " + e);
      }
      if (s.keyOrdered) {
        String key = e.partition() + "/" + e.key();
        if (s.inFlightByKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
          s.error("key " + key + " overlaps at " + e);
        }
      }
      s.queue.add(new Item(e, collector, callback));
      int queued = s.queue.size();
      if (queued > s.maxQueued.get()) {
        s.maxQueued.accumulateAndGet(queued, Math::max);
      }
    }
  }

  private void startCompleters(Stress s) {
    for (int i = 0; i < COMPLETERS; i++) {
      Thread thread = new Thread(() -> {
        try {
          while (true) {
            Item item = s.queue.take();
            Envelope e = item.envelope();
            item.collector().send("out", e.partition(), e.key(), e.offset());
            if (s.keyOrdered) {
              String key = e.partition() + "/" + e.key();
              long last = s.lastCompletedByKey.computeIfAbsent(key, k -> new AtomicLong(-1))
                  .getAndSet(e.offset());
              if (last >= e.offset()) {
                s.error("key " + key + " completed " + e.offset() + " after " + last);
              }
              s.inFlightByKey.get(key).decrementAndGet();
            }
            item.callback().complete();
          }
        } catch (InterruptedException stop) {
          // the test is over
        } catch (Throwable t) {
          s.errors.add(t);
        }
      }, "stress-completer-" + i);
      thread.setDaemon(true);
      thread.start();
      completers.add(thread);
    }
  }

  @BeforeEach
  void clear() {
    completers.clear();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Thread thread : completers) {
      thread.interrupt();
    }
    for (Thread thread : completers) {
      thread.join(5_000);
    }
    if (job != null) {
      job.close();
    }
    stress = null;
  }

  private void run(String ordering) throws Exception {
    Stress s = new Stress(ordering.equals("key"));
    stress = s;
    startCompleters(s);
    job = new AsyncJob(tmp, QueueingTask.class, PARTITIONS)
        .set("task.max.concurrency", 1000)
        .set("task.ordering", ordering)
        .fill(PER_PARTITION, (p, i) -> "k" + ((i * 7919L + p) % KEYS))
        .seal();

    LocalRunner runner = job.runOk();

    assertThat(s.errors).isEmpty();
    assertThat(runner.processed()).isEqualTo((long) PARTITIONS * PER_PARTITION);
    for (int p = 0; p < PARTITIONS; p++) {
      AtomicIntegerArray seen = s.processed[p];
      int missing = 0;
      for (int i = 0; i < PER_PARTITION; i++) {
        if (seen.get(i) != 1) {
          missing++;
        }
      }
      assertThat(missing).as("partition %d: messages not processed exactly once", p).isZero();
      int[] outputs = new int[PER_PARTITION];
      for (Envelope out : job.output(p)) {
        outputs[(int) (long) (Long) out.value()]++;
      }
      int wrong = 0;
      for (int count : outputs) {
        if (count != 1) {
          wrong++;
        }
      }
      assertThat(job.output(p)).hasSize(PER_PARTITION);
      assertThat(wrong).as("partition %d: offsets not output exactly once", p).isZero();
      assertThat(job.checkpointOf(p)).isEqualTo(PER_PARTITION - 1L);
    }
    assertThat(s.maxQueued.get()).as("callbacks in flight at once")
        .isGreaterThan(COMPLETERS).isLessThanOrEqualTo(PARTITIONS * 1000);
  }

  @Test
  void twoHundredThousandMessagesWithEightCompletersAndNoOrderAreEachProcessedAndOutputOnce()
      throws Exception {
    run("none");
  }

  @Test
  void twoHundredThousandMessagesWithEightCompletersAndKeyOrderKeepEachKeyInOrder()
      throws Exception {
    run("key");
  }
}
