package io.millrace.core.store;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.spi.engine.StorageEngine;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Store flushes done off the loop thread: order per store, drain, failures, fallback. */
class StoreFlusherTest {
  /** Records each partition's values in arrival order, and the threads that sent them. */
  private static final class Recording implements SystemProducer {
    final boolean concurrent;
    final Map<Integer, List<Long>> byPartition = new ConcurrentHashMap<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    volatile long failAt = -1;
    volatile long fenceAt = -1;

    Recording(boolean concurrent) {
      this.concurrent = concurrent;
    }

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      long v = ByteBuffer.wrap((byte[]) value).getLong();
      if (v == fenceAt) {
        throw new CommitFencedException("the broker aborted transaction t-c0", null);
      }
      if (v == failAt) {
        throw new IllegalStateException("a record sent to topic counts-changelog partition "
            + partition + " was not acknowledged");
      }
      byPartition.computeIfAbsent(partition, p -> new CopyOnWriteArrayList<>()).add(v);
      noteThread(threads);
    }

    @Override
    public void flush() {}

    @Override
    public boolean concurrentSends() {
      return concurrent;
    }

    @Override
    public void stop() {}
  }

  /** Records the values written and the threads that wrote them. */
  private static final class RecordingEngine extends WatchedEngine {
    final boolean concurrent;
    final List<Long> written = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    volatile long failAt = -1;
    volatile long fenceAt = -1;

    RecordingEngine(boolean concurrent) {
      this.concurrent = concurrent;
    }

    @Override
    public void write(List<byte[]> keys, List<byte[]> values) {
      for (byte[] value : values) {
        long v = ByteBuffer.wrap(value).getLong();
        if (v == fenceAt) {
        throw new CommitFencedException("the broker aborted transaction t-c0", null);
      }
      if (v == failAt) {
          throw new IllegalStateException("store counts: RocksDB write failed: No space left");
        }
        written.add(v);
      }
      noteThread(threads);
    }

    @Override
    public boolean concurrentWrites() {
      return concurrent;
    }
  }

  /** Adds this thread's name to {@code threads} unless it is the last one there. */
  private static void noteThread(List<String> threads) {
    String name = Thread.currentThread().getName();
    if (threads.isEmpty() || !threads.get(threads.size() - 1).equals(name)) {
      threads.add(name);
    }
  }

  /** Flushes values 0 to 999, one a batch, then drains: for a flusher meant to fail on the way. */
  private static void flushAThousandAndDrain(StoreFlusher flusher, StorageEngine engine,
      ChangelogWriter writer) {
    for (long v = 0; v < 1_000; v++) {
      flusher.flush(engine, writer, List.of(bytes(v)), List.of(bytes(v)));
    }
    flusher.drain();
  }

  private static byte[] bytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void flushesLeaveTheLoopInOrderAndDrainReturnsOnceEveryOneIsDone() {
    Recording producer = new Recording(true);
    int stores = 5;
    int batches = 2_000;
    List<RecordingEngine> engines = new ArrayList<>();
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      List<ChangelogWriter> writers = new ArrayList<>();
      for (int p = 0; p < stores; p++) {
        writers.add(new ChangelogWriter(producer, 0, p));
        engines.add(new RecordingEngine(true));
      }
      long next = 0;
      long lastSequence = 0;
      for (int b = 0; b < batches; b++) {
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
          keys.add(bytes(i));
          values.add(bytes(next++));
        }
        long sequence = flusher.flush(engines.get(b % stores), writers.get(b % stores), keys,
            values);
        assertThat(sequence).as("a deferred write is numbered").isEqualTo(lastSequence + 1);
        lastSequence = sequence;
        if (b % 500 == 499) {
          flusher.drain();
          assertThat(flusher.finished()).isEqualTo(sequence);
          long sent = producer.byPartition.values().stream().mapToLong(List::size).sum();
          long written = engines.stream().mapToLong(e -> e.written.size()).sum();
          assertThat(sent).as("after a drain, every record is in the producer").isEqualTo(next);
          assertThat(written).as("and in its engine").isEqualTo(next);
        }
      }
      flusher.drain();
    }
    for (List<Long> values : producer.byPartition.values()) {
      assertThat(values).isSorted();
    }
    for (RecordingEngine engine : engines) {
      assertThat(engine.written).isSorted().hasSize(batches / stores * 7);
      assertThat(engine.threads).containsExactly("test-store-flush");
    }
    assertThat(producer.threads).containsExactly("test-store-flush");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aFailedSendFailsTheNextDrainAndNothingAfterItIsSent() {
    Recording producer = new Recording(true);
    producer.failAt = 30;
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      ChangelogWriter writer = new ChangelogWriter(producer, 0, 0);
      RecordingEngine engine = new RecordingEngine(true);
      assertThatThrownBy(() -> flushAThousandAndDrain(flusher, engine, writer))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("counts-changelog partition 0 was not acknowledged");
      assertThat(producer.byPartition.get(0)).hasSize(30);
    }
  }

  /**
   * A changelog send that finds the container fenced (its transaction aborted by a refused
   * commit) fails the flusher with the fence itself, so the loop loses its tasks instead of
   * failing the container; closing the lost tasks' stores drains past it, and once the container
   * holds no task the flusher serves the next ones.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aSendThatFindsTheContainerFencedFailsWithTheFenceWhichTheLossOfEveryTaskForgets() {
    Recording producer = new Recording(true);
    producer.fenceAt = 30;
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      ChangelogWriter writer = new ChangelogWriter(producer, 0, 0);
      RecordingEngine engine = new RecordingEngine(true);
      assertThatThrownBy(() -> flushAThousandAndDrain(flusher, engine, writer))
          .isExactlyInstanceOf(CommitFencedException.class);
      flusher.drainAfterLoss(); // the lost tasks' stores close past it
      assertThatThrownBy(flusher::drain).as("kept until no task is left")
          .isExactlyInstanceOf(CommitFencedException.class);

      flusher.forgetFence();
      producer.fenceAt = -1;
      flusher.flush(engine, writer, List.of(bytes(5_000)), List.of(bytes(5_000)));
      flusher.drain();
      assertThat(producer.byPartition.get(0)).hasSize(31).endsWith(5_000L);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anOutputFailureIsNotForgottenWithTheFence() {
    Recording producer = new Recording(true);
    producer.failAt = 3;
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      ChangelogWriter writer = new ChangelogWriter(producer, 0, 0);
      RecordingEngine engine = new RecordingEngine(true);
      assertThatThrownBy(() -> flushAThousandAndDrain(flusher, engine, writer))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(flusher::drainAfterLoss).isInstanceOf(IllegalStateException.class);
      flusher.forgetFence();
      assertThatThrownBy(flusher::drain).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aFailedEngineWriteFailsTheNextFlushOrDrainAndItsRecordsAreNotSent() {
    Recording producer = new Recording(true);
    RecordingEngine engine = new RecordingEngine(true);
    engine.failAt = 30;
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      ChangelogWriter writer = new ChangelogWriter(producer, 0, 0);
      assertThatThrownBy(() -> flushAThousandAndDrain(flusher, engine, writer))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("RocksDB write failed: No space left");
      assertThat(engine.written).hasSize(30);
      assertThat(producer.byPartition.get(0)).as("a record is sent after its write").hasSize(30);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void twoThreadsAwaitingBatchesAsTheyFlowAreEachWokenOnceTheirsIsDone() throws Exception {
    RecordingEngine engine = new RecordingEngine(true);
    java.util.concurrent.atomic.AtomicLong published = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      // A commit's thread waiting for what the loop handed over, while the loop hands more over
      // and waits too (as an iterator does).
      java.util.concurrent.CompletableFuture<Long> other =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            long waits = 0;
            while (!done.get()) {
              long sequence = published.get();
              flusher.await(sequence);
              assertThat(flusher.finished()).isGreaterThanOrEqualTo(sequence);
              waits++;
            }
            return waits;
          });
      for (int i = 1; i <= 5_000; i++) {
        long sequence = flusher.flush(engine, null, List.of(bytes(i)), List.of(bytes(i)));
        published.set(sequence);
        if (i % 7 == 0) {
          flusher.await(sequence);
          assertThat(flusher.finished()).isGreaterThanOrEqualTo(sequence);
        }
      }
      flusher.drain();
      done.set(true);
      assertThat(other.get(30, TimeUnit.SECONDS)).isPositive();
      assertThat(engine.written).hasSize(5_000);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void awaitReturnsOnceItsBatchIsWrittenWhileALaterOneIsStillHeldUp() throws Exception {
    RecordingEngine quick = new RecordingEngine(true);
    CachedStoreTest.LaggingEngine held = new CachedStoreTest.LaggingEngine(false, 0);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      long first = flusher.flush(quick, null, List.of(bytes(1)), List.of(bytes(1)));
      long second = flusher.flush(held, null, List.of(bytes(2)), List.of(bytes(2)));

      flusher.await(first);
      assertThat(quick.written).containsExactly(1L);
      assertThat(flusher.finished()).as("the later batch is still held up").isLessThan(second);
      held.release();
      flusher.drain();
      assertThat(flusher.finished()).isEqualTo(second);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aParkedFlusherFinishesWhatWasHandedOverAndStartsNothingLaterUntilUnparked()
      throws Exception {
    Recording producer = new Recording(true);
    RecordingEngine engine = new RecordingEngine(true);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      ChangelogWriter writer = new ChangelogWriter(producer, 0, 0);
      long next = 0;
      for (int commit = 0; commit < 300; commit++) {
        for (int i = 0; i < 1 + commit % 3; i++) {
          flusher.flush(engine, writer, List.of(bytes(next)), List.of(bytes(next++)));
        }
        long handed = flusher.handed();
        long inTheCommit = next;
        flusher.parkAfterHanded(); // a commit's transaction closes here
        for (int i = 0; i < 1 + commit % 4; i++) { // the loop goes on meanwhile
          flusher.flush(engine, writer, List.of(bytes(next)), List.of(bytes(next++)));
        }
        // The commit's thread waits for its batches, which the flusher finishes, parked after.
        java.util.concurrent.CompletableFuture.runAsync(() -> flusher.await(handed))
            .get(30, TimeUnit.SECONDS);
        assertThat(producer.byPartition.get(0)).as("sent in commit %d", commit)
            .hasSize((int) inTheCommit);
        assertThat(engine.written).hasSize((int) inTheCommit);
        flusher.unpark();
      }
      flusher.drain();
      assertThat(producer.byPartition.get(0)).hasSize((int) next).isSorted();
      assertThat(engine.written).hasSize((int) next).isSorted();
    }
  }

  /** A batch of {@code n} entries whose values count on from {@code first}. */
  private static List<byte[]> values(long first, int n) {
    List<byte[]> values = new ArrayList<>(n);
    for (long v = first; v < first + n; v++) {
      values.add(bytes(v));
    }
    return values;
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aCommitOfOneSmallBatchPerStoreHandsThemAllOverWhileTheFlusherIsHeldUp() {
    RecordingEngine engine = new RecordingEngine(true);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      flusher.parkAfterHanded(); // held up: nothing handed over from here on is taken yet
      long next = 0;
      for (int store = 0; store < 24; store++) { // a commit of a container with 24 stores
        List<byte[]> batch = values(next, 500);
        next += 500;
        flusher.flush(engine, null, batch, batch); // returns: the queue holds entries, not 4
      }
      assertThat(engine.written).isEmpty();
      flusher.unpark();
      flusher.drain();
      assertThat(engine.written).hasSize((int) next).isSorted();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aFlushWaitsOnceTheQueueHoldsItsBoundOfEntriesAndGoesOnWhenTheFlusherTakesThem()
      throws Exception {
    RecordingEngine engine = new RecordingEngine(true);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      flusher.parkAfterHanded();
      int full = StoreFlusher.QUEUED_ENTRIES / 4;
      for (int i = 0; i < 4; i++) {
        List<byte[]> batch = values((long) i * full, full);
        flusher.flush(engine, null, batch, batch);
      }
      long last = 4L * full;
      Thread loop = new Thread(() -> flusher.flush(engine, null, List.of(bytes(last)),
          List.of(bytes(last))), "test-loop");
      loop.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (loop.getState() != Thread.State.WAITING) { // parked for room in the queue
        assertThat(System.nanoTime()).as("the fifth flush waits for room").isLessThan(deadline);
        Thread.onSpinWait();
      }
      assertThat(flusher.handed()).isEqualTo(4);
      flusher.unpark();
      loop.join(30_000);
      assertThat(loop.isAlive()).isFalse();
      flusher.drain();
      assertThat(engine.written).hasSize((int) last + 1).isSorted();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aCommitsHandOverIsOneBatchQueuedPastAFullQueueAndTheFlushAfterItWaitsForRoom()
      throws Exception {
    RecordingEngine engine = new RecordingEngine(true);
    Recording producer = new Recording(true);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      flusher.parkAfterHanded();
      int full = StoreFlusher.QUEUED_ENTRIES / 4;
      for (int i = 0; i < 3; i++) { // room is left for 10,000 entries
        List<byte[]> batch = values((long) i * full, full);
        flusher.flush(engine, null, batch, batch);
      }
      long next = 3L * full;
      List<StoreFlusher.Flush> flushes = new ArrayList<>();
      for (int store = 0; store < 24; store++) { // a commit of a container with 24 stores
        List<byte[]> batch = values(next, 500);
        next += 500;
        flushes.add(new StoreFlusher.Flush(engine, new ChangelogWriter(producer, 0, store),
            batch, batch));
      }

      long sequence = flusher.handOver(flushes); // 12,000 entries: returns at once, in debt

      assertThat(sequence).as("one batch for the 24 stores").isEqualTo(4);
      assertThat(flusher.handed()).isEqualTo(4);
      assertThat(flusher.room()).as("the hand-over's room taken into debt").isEqualTo(-2_000);
      long last = next;
      Thread loop = new Thread(() -> flusher.flush(engine, null, List.of(bytes(last)),
          List.of(bytes(last))), "test-loop");
      loop.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (loop.getState() != Thread.State.WAITING) { // parked for room in the queue
        assertThat(System.nanoTime()).as("the flush after the hand-over waits for room")
            .isLessThan(deadline);
        Thread.onSpinWait();
      }
      flusher.unpark();
      loop.join(30_000);
      assertThat(loop.isAlive()).isFalse();
      flusher.drain();
      assertThat(flusher.room()).as("the debt repaid").isEqualTo(StoreFlusher.QUEUED_ENTRIES);
      assertThat(engine.written).hasSize((int) last + 1).isSorted();
      for (int store = 0; store < 24; store++) {
        assertThat(producer.byPartition.get(store)).hasSize(500).isSorted();
      }
      assertThat(engine.threads).containsExactly("test-store-flush");
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aHandOverLargerThanTheWholeBoundIsTakenAndTheFlushesAfterItGoOnOnceItIsWritten() {
    RecordingEngine engine = new RecordingEngine(true);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      int stores = 6;
      int each = StoreFlusher.QUEUED_ENTRIES / 4; // 60,000 entries in all
      List<StoreFlusher.Flush> flushes = new ArrayList<>();
      for (int store = 0; store < stores; store++) {
        List<byte[]> batch = values((long) store * each, each);
        flushes.add(new StoreFlusher.Flush(engine, null, batch, batch));
      }
      long sequence = flusher.handOver(flushes);
      long last = (long) stores * each;
      flusher.flush(engine, null, List.of(bytes(last)), List.of(bytes(last))); // waits, then goes
      flusher.drain();
      assertThat(flusher.finished()).isEqualTo(sequence + 1);
      assertThat(flusher.room()).isEqualTo(StoreFlusher.QUEUED_ENTRIES);
      assertThat(engine.written).hasSize((int) last + 1).isSorted();
    }
  }

  @Test
  void aHandOverDoesOnTheLoopWhatCannotLeaveItAndDefersTheRest() {
    Recording loopOnly = new Recording(false);
    RecordingEngine loopEngine = new RecordingEngine(false);
    RecordingEngine anyThread = new RecordingEngine(true);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      assertThat(flusher.handOver(List.of(new StoreFlusher.Flush(loopEngine,
          new ChangelogWriter(loopOnly, 0, 0), List.of(bytes(1)), List.of(bytes(1))))))
          .as("nothing deferred").isZero();
      assertThat(flusher.handed()).isZero();
      assertThat(loopEngine.written).containsExactly(1L);
      assertThat(loopOnly.byPartition.get(0)).containsExactly(1L);

      long sequence = flusher.handOver(List.of(
          new StoreFlusher.Flush(loopEngine, null, List.of(bytes(2)), List.of(bytes(2))),
          new StoreFlusher.Flush(anyThread, null, List.of(bytes(3)), List.of(bytes(3)))));
      assertThat(sequence).isEqualTo(1);
      assertThat(flusher.defersWrites(anyThread)).isTrue();
      assertThat(flusher.defersWrites(loopEngine)).isFalse();
      flusher.await(sequence);
      assertThat(loopEngine.written).containsExactly(1L, 2L);
      assertThat(anyThread.written).containsExactly(3L);
    }
    assertThat(loopEngine.threads).containsExactly(Thread.currentThread().getName());
    assertThat(anyThread.threads).containsExactly("test-store-flush");
  }

  @Test
  void anEngineAndAProducerThatTakeWorkOnlyFromTheLoopGetItThere() {
    Recording producer = new Recording(false);
    RecordingEngine engine = new RecordingEngine(false);
    try (StoreFlusher flusher = StoreFlusher.threaded("test-store-flush")) {
      long sequence = flusher.flush(engine, new ChangelogWriter(producer, 0, 0),
          List.of(bytes(1)), List.of(bytes(1)));
      assertThat(sequence).as("nothing deferred").isZero();
      assertThat(engine.written).containsExactly(1L);
      assertThat(producer.byPartition.get(0)).containsExactly(1L);
      flusher.drain();
    }
    assertThat(engine.threads).containsExactly(Thread.currentThread().getName());
    assertThat(producer.threads).containsExactly(Thread.currentThread().getName());
  }

  @Test
  void anInlineFlusherDoesEverythingOnTheCallersThread() {
    Recording producer = new Recording(true);
    RecordingEngine engine = new RecordingEngine(true);
    try (StoreFlusher flusher = StoreFlusher.inline()) {
      assertThat(flusher.flush(engine, new ChangelogWriter(producer, 0, 0), List.of(bytes(1)),
          List.of(bytes(1)))).isZero();
      assertThat(engine.written).containsExactly(1L);
      assertThat(producer.byPartition.get(0)).containsExactly(1L);
    }
  }
}
