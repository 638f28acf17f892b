package io.millrace.core.store;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.engine.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Applies a container's store flushes: each flush's write batch goes to its engine, then its
 * records to its changelog. With a thread, the parts that may leave the loop thread are done
 * there, in the order the stores flushed them, while the loop goes on: an engine write whose
 * engine takes writes from any thread ({@link StorageEngine#concurrentWrites}, RocksDB) and a
 * changelog send whose producer takes sends from any thread ({@code
 * SystemProducer.concurrentSends}, Kafka). A Kafka send costs about a microsecond a record and a
 * RocksDB batch about half that: on the loop thread they were 40% and 18% of a count job's time.
 * The rest, and everything without a thread, is done on the caller's thread.
 *
 * <p>A flush whose engine write was deferred gets a sequence number; {@link #finished} says how
 * far the thread has got, so a store knows which of its evicted entries its engine does not hold
 * yet (see {@link CachedStore}). {@link #drain} (called by the commit before the producers are
 * flushed) returns once everything handed over is done, or throws the first failure. Loop thread
 * only, but for the flushing thread itself.
 */
public final class StoreFlusher implements AutoCloseable {
  /**
   * Entries queued at most by the flushes between commits: a flusher that falls behind holds the
   * loop back instead of the heap. Counted in entries, not batches: four full batches at the
   * default {@code write.batch.size} (10,000). A commit's hand-over does not wait for it (it takes
   * its room into debt: {@link #handOver}).
   */
  static final int QUEUED_ENTRIES = 40_000;
  private static final Batch STOP = new Batch(List.of(), 0);
  private final BlockingQueue<Batch> queue;
  /** Room for entries in the queue; the loop takes it, the thread gives it back. */
  private final Room room;
  private final Thread thread;
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  /** Batches the thread has finished with (done, or dropped after a failure). */
  private final AtomicLong finished = new AtomicLong();
  /** Batches handed to the thread; loop thread only. */
  private long handed;
  /** Threads waiting in {@link #await}: the thread wakes them when it finishes a batch. */
  private final AtomicInteger waiting = new AtomicInteger();
  private final Object finishedSignal = new Object();
  /**
   * The last batch the thread may finish before it parks, or {@link Long#MAX_VALUE}: a commit
   * whose transaction commits beside the loop parks it after the batches that belong in that
   * transaction ({@link #parkAfterHanded}). Read once per batch.
   */
  private volatile long parkAfter = Long.MAX_VALUE;
  private final Object parkSignal = new Object();

  /**
   * One store's flush: the engine to write it to and the changelog to send it to (null: not
   * here, or not on the thread).
   */
  public record Flush(StorageEngine engine, ChangelogWriter changelog, List<byte[]> keys,
      List<byte[]> values) {}

  /** What the thread takes at once: one flush, or every store's flush of a commit's hand-over. */
  private record Batch(List<Flush> flushes, int weight) {}

  /**
   * The queue's room, which a commit's hand-over may take into debt ({@link #handOver}): the
   * flushes that follow it then wait until the thread has worked it off.
   */
  private static final class Room extends Semaphore {
    Room(int permits) {
      super(permits);
    }

    void takeWithoutWaiting(int permits) {
      reducePermits(permits); // may go below zero: acquire(n) waits until n are back
    }
  }

  private StoreFlusher(String threadName) {
    if (threadName == null) {
      queue = null;
      room = null;
      thread = null;
    } else {
      queue = new LinkedBlockingQueue<>(); // bounded by room, in entries
      room = new Room(QUEUED_ENTRIES);
      thread = new Thread(this::run, threadName);
      thread.setDaemon(true);
    }
  }

  /** A flusher that does everything on the caller's thread. */
  public static StoreFlusher inline() {
    return new StoreFlusher(null);
  }

  /** A flusher with a thread of that name for the engines and producers that allow it. */
  public static StoreFlusher threaded(String threadName) {
    return new StoreFlusher(threadName);
  }

  /**
   * Applies one flush of one store instance: writes it to {@code engine} and sends it to
   * {@code changelog} (null: none), now or on the thread. The lists become the flusher's.
   *
   * @return the flush's sequence number if its engine write was left to the thread (the engine
   *     holds it once {@link #finished} reaches that number), else 0
   */
  long flush(StorageEngine engine, ChangelogWriter changelog, List<byte[]> keys,
      List<byte[]> values) {
    rethrow();
    Flush away = doHere(new Flush(engine, changelog, keys, values));
    if (away == null) {
      return 0;
    }
    int weight = weight(keys.size());
    try {
      room.acquire(weight); // (a batch larger than the bound waits for an empty queue)
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing a store flush over", e);
    }
    put(new Batch(List.of(away), weight));
    return away.engine != null ? handed : 0;
  }

  /**
   * A commit's hand-over: applies every store's flush as {@link #flush} does each, but gives the
   * thread those it takes as one batch, once all are serialized (the thread, woken at each
   * store's batch, took the loop's core away from the rest of its hand-over: a loaded machine's
   * loop spent 2-11 ms of CPU in 10-50 ms of it), and without waiting for room. The room is taken
   * all the same, into debt if need be, so the store flushes after it wait for the thread to
   * catch up: what this adds to the queue is bounded by the stores' dirty entries, at most
   * {@code write.batch.size} each, which their caches hold anyway, and only one hand-over is in
   * debt at a time (a commit waits for its hand-over to be done before the next one begins).
   * (Waiting for room here held the loop 60-235 ms at commits after a failover, while the thread
   * wrote the restored tasks' first flushes.)
   *
   * <p>If a store's part that stays on this thread fails (an engine or changelog that takes work
   * only here), nothing is handed over and every store's entries stay dirty: the stores before it
   * write and send theirs again at the next flush (the changelog may then hold a record twice,
   * which a replay applies as once), and the failure fails the commit.
   *
   * @return the batch's sequence number if any engine write was left to the thread (those
   *     engines hold it once {@link #finished} reaches it; see {@link #defersWrites}), else 0
   */
  long handOver(List<Flush> flushes) {
    rethrow();
    List<Flush> away = new ArrayList<>(flushes.size());
    int entries = 0;
    boolean engines = false;
    for (Flush flush : flushes) {
      Flush part = doHere(flush);
      if (part != null) {
        away.add(part);
        entries += part.keys.size();
        engines |= part.engine != null;
      }
    }
    if (away.isEmpty()) {
      return 0;
    }
    int weight = weight(entries);
    room.takeWithoutWaiting(weight);
    put(new Batch(away, weight));
    return engines ? handed : 0;
  }

  /** Room left in the queue, in entries (below zero: a hand-over's debt). For tests. */
  int room() {
    return room.availablePermits();
  }

  /** Whether the thread, not the caller, writes a flush to {@code engine}. */
  boolean defersWrites(StorageEngine engine) {
    return thread != null && engine.concurrentWrites();
  }

  /**
   * Does on this thread what may not leave it (an engine or a changelog that takes writes from
   * one thread only, or everything without a thread); returns what is left for the thread, or
   * null.
   */
  private Flush doHere(Flush flush) {
    boolean engineAway = defersWrites(flush.engine);
    boolean changelogAway = thread != null && flush.changelog != null
        && flush.changelog.concurrentSends();
    if (!engineAway) {
      flush.engine.write(flush.keys, flush.values);
    }
    if (flush.changelog != null && !changelogAway) {
      flush.changelog.sendNow(flush.keys, flush.values);
    }
    if (!engineAway && !changelogAway) {
      return null;
    }
    return new Flush(engineAway ? flush.engine : null, changelogAway ? flush.changelog : null,
        flush.keys, flush.values);
  }

  private void put(Batch batch) {
    if (handed == 0 && !thread.isAlive()) {
      thread.start(); // on the first batch: a job that never defers anything never starts it
    }
    queue.add(batch); // unbounded: the room bounds it
    handed++;
  }

  /**
   * How many batches the thread has finished: a deferred write numbered up to this is done.
   * Throws the thread's failure instead, if it had one: a batch it failed to write counts as
   * finished, and a store must not evict entries on the strength of it.
   */
  long finished() {
    long done = finished.get();
    rethrow();
    return done;
  }

  /**
   * As {@link #finished}, without throwing the thread's failure: for bookkeeping only, where the
   * next {@link #finished}, flush or commit throws it before anything relies on a failed batch.
   */
  long finishedSoFar() {
    return finished.get();
  }

  /** Waits until everything handed over is done; throws the first failure. */
  public void drain() {
    await(handed);
  }

  /**
   * As {@link #drain}, for tasks that are lost: a failure that is the container's fence (a send
   * found its transaction aborted) is not thrown, since what the lost tasks wrote since their
   * last commit is dropped anyway; any other failure is.
   */
  void drainAfterLoss() {
    try {
      drain();
    } catch (CommitFencedException fence) {
      // (kept until forgetFence: a task that stays must still learn that its writes were dropped)
    }
  }

  /**
   * Forgets a failure that is the container's fence, once the container holds no task any more:
   * the batches dropped after it were those tasks', and the tasks given to it next start from
   * their checkpoints on a flusher that works. Loop thread, with nothing handed over pending.
   */
  void forgetFence() {
    RuntimeException e = failure.get();
    if (e instanceof CommitFencedException) {
      failure.compareAndSet(e, null);
    }
  }

  /** Whether a thread of its own does the engine writes and sends that may leave the loop. */
  boolean threaded() {
    return thread != null;
  }

  /**
   * The thread finishes what was handed over so far, then waits for {@link #unpark} before the
   * next batch: a transaction committing beside the loop holds exactly the changelog records
   * handed over before this (and, under exactly-once, the engines stage nothing more until it
   * sealed). Loop thread.
   */
  void parkAfterHanded() {
    parkAfter = handed;
  }

  /** Lets the thread go on after {@link #parkAfterHanded}. Any thread. */
  void unpark() {
    parkAfter = Long.MAX_VALUE;
    synchronized (parkSignal) {
      parkSignal.notifyAll();
    }
  }

  /** How many batches were handed over so far: {@link #await} that to wait for them. */
  long handed() {
    return handed;
  }

  /**
   * Waits until the thread has finished batch {@code sequence} and those before it (0: returns at
   * once); throws the first failure. Any thread (a commit's in the background too).
   */
  void await(long sequence) {
    if (finished.get() < sequence) {
      // Woken by the thread as it finishes each batch, not polling: under exactly-once a commit
      // waits here ten times a second, and a 20 us poll burnt a share of two cores doing it.
      waiting.incrementAndGet();
      try {
        synchronized (finishedSignal) {
          while (finished.get() < sequence) {
            finishedSignal.wait(1); // the time-out only guards the signal; it is not needed
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the store flusher", e);
      } finally {
        waiting.decrementAndGet();
      }
    }
    rethrow();
  }

  private void run() {
    try {
      for (Batch b = queue.take(); b != STOP; b = queue.take()) {
        if (finished.get() >= parkAfter) { // b was handed after a commit's transaction closed
          synchronized (parkSignal) {
            while (finished.get() >= parkAfter) {
              parkSignal.wait();
            }
          }
        }
        try {
          for (Flush f : b.flushes) {
            if (failure.get() != null) {
              break;
            }
            if (f.engine != null) {
              f.engine.write(f.keys, f.values);
            }
            if (f.changelog != null) {
              f.changelog.sendNow(f.keys, f.values);
            }
          }
        } catch (RuntimeException e) {
          failure.compareAndSet(null, e);
        } finally {
          room.release(b.weight);
          finished.incrementAndGet();
          if (waiting.get() > 0) { // one volatile read per batch when nobody waits
            synchronized (finishedSignal) {
              finishedSignal.notifyAll();
            }
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The room a batch takes in the queue: its entries, at most the whole bound. */
  private static int weight(int entries) {
    return Math.max(1, Math.min(entries, QUEUED_ENTRIES));
  }

  private void rethrow() {
    RuntimeException e = failure.get();
    if (e != null) {
      throw e;
    }
  }

  /**
   * Stops the thread once it has done what it was handed (a commit drained it before).
   *
   * @return false if the thread is still running (it may still use an engine, which must then
   *     not be closed)
   */
  public boolean stop() {
    if (thread == null || !thread.isAlive()) {
      return true;
    }
    queue.add(STOP); // takes no room: the queue itself is unbounded
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !thread.isAlive();
  }

  @Override
  public void close() {
    stop();
  }
}
