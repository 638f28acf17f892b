package io.millrace.core.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.ClosableTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCallback;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.coordinator.ContainerMembership;
import io.millrace.spi.coordinator.JobCoordinator;
import io.millrace.spi.coordinator.MembershipListener;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemProducer;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.async.Ordering;
import io.millrace.core.commit.Committer;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.output.OutputRoute;
import io.millrace.core.output.TaskCollector;
import io.millrace.core.serde.StringSerde;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A container whose tasks change while it runs, driven step by step: a scripted membership gives
 * and takes tasks at its polls (on its own thread, as a real one; each of its calls waits for the
 * loop, which the test cycles), a scripted consumer hands out an endless stream per partition
 * (the value of offset n of partition p is "p-n"), the clock is moved by hand, and checkpoints
 * are recorded as they are written.
 */
class ReassignmentTest {
  private static final long MS = 1_000_000L;
  /** How often the membership's thread polls, in real time. */
  private static final long POLL_INTERVAL = MS;

  /** A clock the test moves. */
  private static final class ManualClock implements Clock {
    long now = 1_000 * MS;

    @Override
    public long nanoTime() {
      return now;
    }
  }

  /** Endless partitions of stream "in": every poll hands each asked index a few more messages. */
  private static final class ScriptedConsumer implements SystemConsumer {
    final Map<Integer, Integer> partitionOf = new HashMap<>();
    final Map<Integer, Long> next = new HashMap<>();
    final List<String> calls = new ArrayList<>();
    /** Messages a poll hands each partition (at most the loop's max per poll). */
    int perPoll = 5;
    /** Each partition's end: it has no offset from here on (nothing more arrives). */
    long endAt = Long.MAX_VALUE;

    @Override
    public void register(int index, StreamSpec stream, int partition, StartPosition start) {
      calls.add("register " + index + "=p" + partition);
      partitionOf.put(index, partition);
      next.put(index, start.kind() == StartPosition.Kind.AFTER ? start.offset() + 1 : 0);
    }

    @Override
    public void unregister(int index) {
      calls.add("unregister " + index);
      partitionOf.remove(index);
      next.remove(index);
    }

    @Override
    public void start() {}

    @Override
    public int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis) {
      int handed = 0;
      for (int i = 0; i < count; i++) {
        int index = indices[i];
        Integer partition = partitionOf.get(index);
        if (partition == null) {
          continue;
        }
        long offset = next.get(index);
        int size = (int) Math.min(Math.min(maxMessages, perPoll), endAt - offset);
        if (size <= 0) {
          continue;
        }
        Envelope[] batch = new Envelope[size];
        for (int j = 0; j < batch.length; j++) {
          long o = offset + j;
          batch[j] = new Envelope("in", partition, o, null, partition + "-" + o, -1, 10);
        }
        next.put(index, offset + batch.length);
        sink.accept(index, batch, 0, batch.length);
        handed += batch.length;
      }
      return handed;
    }

    @Override
    public void stop() {}
  }

  /** Records every checkpoint written: the latest offset of each partition. */
  private static final class RecordedCheckpoints implements CheckpointStore {
    final Map<StreamPartition, Long> latest = java.util.Collections.synchronizedMap(
        new TreeMap<>((a, b) -> a.toString().compareTo(b.toString())));
    /** Counted after {@link #latest} is written (on the commit thread, for a write beside). */
    volatile int writes;
    /** Holds each write until opened (a transaction's commit that takes a while). */
    java.util.concurrent.CountDownLatch writeGate = new java.util.concurrent.CountDownLatch(0);
    /** Whether the next write fails (its transaction aborted). */
    volatile boolean failNextWrite;
    /** Run where the loop holds its sends: the offsets are taken there. */
    Runnable onHold = () -> {};
    /** Run as a write begins, on the writing thread. */
    volatile Runnable onWrite = () -> {};
    final List<String> holdThreads = new CopyOnWriteArrayList<>();
    final List<String> writeThreads = new CopyOnWriteArrayList<>();

    @Override
    public Map<StreamPartition, Long> read() {
      return Map.copyOf(latest);
    }

    /**
     * Whether a write commits a transaction that holds what the output sent, as a Kafka one does
     * (the output then sends in {@link #tx}).
     */
    volatile boolean transactional;
    /** The container's transaction, when the checkpoints are transactional. */
    final io.millrace.spi.system.Transaction tx = new io.millrace.spi.system.Transaction() {
      @Override
      public void holdSends() {
        holdThreads.add(Thread.currentThread().getName());
        onHold.run();
      }

      @Override
      public void sendHeld() {}

      @Override
      public void dropHeldSends() {}
    };

    @Override
    public CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
      return new CheckpointWriter() {
        @Override
        public void write(long[] offsets) {
          writeThreads.add(Thread.currentThread().getName());
          onWrite.run();
          try {
            writeGate.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          if (failNextWrite) {
            failNextWrite = false;
            throw new io.millrace.spi.checkpoint.CheckpointException(
                "the commit's transaction (test-c0) failed and was aborted", null);
          }
          for (int i = 0; i < partitions.size(); i++) {
            if (offsets[i] != NONE) {
              latest.put(partitions.get(i), offsets[i]);
            }
          }
          writes++;
        }

        @Override
        public io.millrace.spi.system.Transaction transaction() {
          return transactional ? tx : null;
        }
      };
    }
  }

  /**
   * A membership that runs, at each poll (on the membership's thread), what the test queued for
   * it; {@link #inStep} says a step is running (set before it is taken from the queue).
   */
  private static final class ScriptedCoordinator implements JobCoordinator {
    final Queue<Consumer<MembershipListener>> script =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    volatile boolean inStep;
    MembershipListener listener;
    boolean left;
    /** What the container said started after its assignment returned. */
    final List<Set<Integer>> startedLater = new CopyOnWriteArrayList<>();

    @Override
    public ContainerMembership join(int containerId, MembershipListener listener) {
      this.listener = listener;
      return new ContainerMembership() {
        @Override
        public void poll() {
          while (true) {
            inStep = true; // before the step leaves the queue: the test never sees neither
            Consumer<MembershipListener> step = script.poll();
            try {
              if (step == null) {
                return;
              }
              step.accept(listener);
            } finally {
              inStep = false;
            }
          }
        }

        @Override
        public long pollIntervalNanos() {
          return POLL_INTERVAL;
        }

        @Override
        public void tasksStarted(Set<Integer> tasks) {
          startedLater.add(Set.copyOf(tasks));
        }

        @Override
        public void leave(boolean clean) {
          left = true;
        }
      };
    }
  }

  /** Counts what each task instance processed; knows whether it was closed. */
  public static final class RecordingTask extends RecordingTaskBase {}

  /** What a recording task keeps: the offsets it processed, whether it was closed. */
  public static class RecordingTaskBase implements StreamTask, ClosableTask {
    final List<Long> offsets = new CopyOnWriteArrayList<>();
    volatile boolean closed;

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      offsets.add(envelope.offset());
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** Holds every callback until the test completes it; sends one output per message. */
  public static final class HoldingTask implements AsyncStreamTask {
    final Map<Long, TaskCallback> held = new LinkedHashMap<>();

    @Override
    public void processAsync(Envelope envelope, Collector collector, TaskCoordinator coordinator,
        TaskCallback callback) {
      collector.send("out", null, envelope.value()); // held until the callback completes
      held.put(envelope.offset(), callback);
    }
  }

  /** Records what reaches the output; sends in the checkpoints' transaction if they have one. */
  private class RecordingProducer implements SystemProducer {
    final List<Object> sent = new CopyOnWriteArrayList<>();

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {
      sent.add(value);
    }

    @Override
    public void flush() {}

    @Override
    public io.millrace.spi.system.Transaction transaction() {
      return checkpoints.transactional ? checkpoints.tx : null;
    }

    @Override
    public void stop() {}
  }

  /**
   * An output whose flush may run beside sends (as Kafka's), held at a gate the test opens: a
   * commit in the background waits there while the loop goes on.
   */
  private final class GatedProducer extends RecordingProducer {
    final java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    final List<String> flushThreads = new CopyOnWriteArrayList<>();
    volatile RuntimeException failure;

    @Override
    public boolean concurrentFlush() {
      return true;
    }

    @Override
    public void flush() {
      flushThreads.add(Thread.currentThread().getName());
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  private RecordingProducer output = new RecordingProducer();
  /** The loop's commit interval (0: only on request and at stop). */
  private long commitNanos;
  /** Whether the container's committer is exactly-once's. */
  private boolean exactlyOnce;

  private final ManualClock clock = new ManualClock();
  private final ScriptedConsumer consumer = new ScriptedConsumer();
  private final RecordedCheckpoints checkpoints = new RecordedCheckpoints();
  private final ScriptedCoordinator coordinator = new ScriptedCoordinator();
  /** Every task instance built, by task number, newest last. */
  private final Map<Integer, List<Object>> built =
      new java.util.concurrent.ConcurrentHashMap<>(); // tasks are prepared on the state updater
  private final List<Integer> released = new ArrayList<>();

  /** On a worker thread: records when it is inside process, blocks until released. */
  public static final class BlockingTask implements StreamTask, ClosableTask {
    static final java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    static final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    static final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      if (envelope.offset() == 0) {
        events.add("process in");
        inside.countDown();
        release.await();
        events.add("process out");
      }
    }

    @Override
    public void close() {
      events.add("close");
    }
  }

  private Object taskFor(boolean async) {
    return poolTask ? new BlockingTask() : async ? new HoldingTask()
        : windowNanos > 0 ? new WindowedTask() : new RecordingTask();
  }

  /** The loop's window interval (0: none); its tasks are then windowed. */
  private long windowNanos;

  /** A recording task that counts its windows. */
  public static final class WindowedTask extends RecordingTaskBase
      implements io.millrace.api.WindowableTask {
    final java.util.concurrent.atomic.AtomicInteger windows =
        new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void window(Collector collector, TaskCoordinator coordinator) {
      windows.incrementAndGet();
    }
  }

  /** The task whose restore fails on the state updater. */
  private static final int FAILS_TO_RESTORE = 11;

  private boolean poolTask;
  /** Messages the loop takes per poll of a partition. */
  private int maxMessages = 10;
  /** The task whose restore is slow: it waits for {@link #restoreGate} or its cancellation. */
  private static final int SLOW = 9;
  private final java.util.concurrent.CountDownLatch restoreGate =
      new java.util.concurrent.CountDownLatch(1);
  private final AtomicBoolean restoreEnded = new AtomicBoolean();  // set as restore() returns
  private final List<String> restoreThreads = new CopyOnWriteArrayList<>();
  private final List<Integer> attached = new CopyOnWriteArrayList<>();
  private final List<Integer> abandoned = new CopyOnWriteArrayList<>();
  /** The task whose preparation is slow: it waits for {@link #prepareGate}. */
  private static final int SLOW_TO_PREPARE = 8;
  private final java.util.concurrent.CountDownLatch prepareGate =
      new java.util.concurrent.CountDownLatch(1);
  /** The thread of each preparation, in order. */
  private final List<String> prepareThreads = new CopyOnWriteArrayList<>();
  /** What the container let go of before preparing it ({@link TaskSource#unclaim}). */
  private final List<Set<Integer>> unclaimed = new CopyOnWriteArrayList<>();

  private RunLoop container(boolean async, int concurrency, long settleNanos) {
    TaskSource source = new TaskSource() {
      @Override
      public List<TaskSpec> take(Set<Integer> numbers) {
        List<TaskSpec> specs = new ArrayList<>();
        for (int n : numbers) {
          StreamPartition id = new StreamPartition("scripted", "in", n);
          Long saved = checkpoints.latest.get(id);
          Object task = taskFor(async);
          built.computeIfAbsent(n, k -> new CopyOnWriteArrayList<>()).add(task);
          TaskInstance instance = new TaskInstance("Partition " + n, n, task,
              new TaskCollector(Map.of("out", new OutputRoute("out", output, 0, 1)),
                  "Partition " + n), null, 1, List.of());
          specs.add(new TaskSpec(instance, List.of(new PartitionSpec(id,
              new StreamSpec("in", "in", new StringSerde(), new StringSerde()), consumer,
              saved == null ? StartPosition.oldest() : StartPosition.after(saved),
              saved == null ? CheckpointStore.NONE : saved, 0, 0, false, -1, 0, -1))));
        }
        return specs;
      }

      @Override
      public Taking prepare(Set<Integer> numbers) {
        prepareThreads.add(Thread.currentThread().getName());
        if (numbers.contains(FAILS_TO_RESTORE)) {
          List<TaskSpec> specs = take(numbers);
          return new Taking() {
            @Override
            public List<TaskSpec> specs() {
              return specs;
            }

            @Override
            public void restore(java.util.function.BooleanSupplier cancelled,
                java.util.function.IntConsumer restored) {
              throw new IllegalStateException("the changelog of task 11 cannot be read");
            }

            @Override
            public void attach(Set<Integer> numbers) {}

            @Override
            public void abandon() {
              abandoned.addAll(numbers);
            }
          };
        }
        if (numbers.contains(SLOW_TO_PREPARE)) {
          try { // its checkpoint read or its stores' open takes a while
            assertThat(prepareGate.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }
        if (!numbers.contains(SLOW)) {
          return TaskSource.super.prepare(numbers);
        }
        List<TaskSpec> specs = take(numbers);
        return new Taking() {
          @Override
          public List<TaskSpec> specs() {
            return specs;
          }

          @Override
          public boolean needsRestore() {
            return true;
          }

          @Override
          public void restore(java.util.function.BooleanSupplier cancelled,
              java.util.function.IntConsumer restored) {
            restoreThreads.add(Thread.currentThread().getName());
            // The others taken with SLOW have little to restore: they are ready at once.
            numbers.stream().filter(n -> n != SLOW).forEach(restored::accept);
            try {
              while (!cancelled.getAsBoolean()
                  && !restoreGate.await(1, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                // a long restore: it ends when the test opens the gate, or is cancelled
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            restoreEnded.set(true);
            if (!cancelled.getAsBoolean()) {
              restored.accept(SLOW);
            }
          }

          @Override
          public void attach(Set<Integer> numbers) {
            attached.addAll(numbers);
          }

          @Override
          public void abandon() {
            numbers.stream().filter(n -> !attached.contains(n)).forEach(abandoned::add);
          }
        };
      }

      @Override
      public void release(int taskNumber, boolean committed) {
        released.add(taskNumber);
      }

      @Override
      public void unclaim(Set<Integer> numbers) {
        unclaimed.add(numbers);
      }

      @Override
      public Map<Integer, Map<String, Long>> localState() {
        return Map.of();
      }
    };
    DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
    Committer committer = new Committer(0, List.of(output), null, checkpoints,
        metrics.counter("container-0", "commits"), true, exactlyOnce);
    LoopSettings settings = new LoopSettings(commitNanos, windowNanos, 1, maxMessages, Long.MAX_VALUE, Long.MAX_VALUE, 0,
        new AsyncSettings(concurrency, Ordering.PARTITION, 60_000 * MS, poolTask ? 1 : 0,
            false));
    RunLoop loop = new RunLoop(new ContainerParts(0, settings, clock, metrics,
        List.of(consumer), List.of(output), committer, ErrorPolicy.FAIL, null, null, async,
        coordinator, source, settleNanos, null));
    loops.add(loop);
    return loop;
  }

  /** The loops the test made: their membership threads stop after it. */
  private final List<RunLoop> loops = new ArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void stopTheMembershipThreads() {
    loops.forEach(RunLoop::stopMembership);
  }

  /** Runs cycles with the clock standing still. */
  private static void cycles(RunLoop loop, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      assertThat(loop.cycle()).isNotNegative();
    }
  }

  /**
   * Cycles the loop (its clock standing still: the membership's thread runs on real time) until
   * the membership has run every step the test queued, each of its calls answered by the loop: a
   * revoke's returns once the tasks are committed and closed.
   */
  private void nextMembershipPoll(RunLoop loop) throws Exception {
    assertThat(loop.cycle()).isNotNegative(); // at least one cycle: it runs what was posted
    cyclesUntil(loop, () -> coordinator.script.isEmpty() && !coordinator.inStep);
  }

  /**
   * Lets membership polls come until an assigned task has started: while the container runs
   * other tasks, an arriving one is prepared on the state updater and starts at a later poll.
   */
  private void untilStarted(RunLoop loop, int number) throws Exception {
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "task " + number + " started", () -> {
          nextMembershipPoll(loop);
          return loop.tasks().stream().anyMatch(t -> t.number == number);
        });
  }

  private RecordingTask task(int number, int instance) {
    return (RecordingTask) built.get(number).get(instance);
  }

  @Test
  void aLoopThatKeepsUpWithItsInputIsNotBusyHoweverOftenItDelivers() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0, 1)));
    loop.start();
    for (int i = 0; i < 30; i++) { // every cycle delivers what its poll brought, and drains it
      assertThat(loop.cycle()).isPositive();
      clock.now += 10 * MS;
      assertThat(loop.busy()).as("caught up after %d ms of delivering", i * 10).isFalse();
    }
  }

  @Test
  void aLoopBehindItsInputFor100MsIsBusyUntilItCatchesUp() throws Exception {
    maxMessages = 20_000;
    consumer.perPoll = 20_000; // one poll brings five cycles' worth (4,096 a cycle), then no more
    consumer.endAt = 20_000;
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    assertThat(loop.cycle()).isEqualTo(RunLoop.MESSAGES_PER_CYCLE); // began caught up
    assertThat(loop.cycle()).isEqualTo(RunLoop.MESSAGES_PER_CYCLE); // began behind: from now
    clock.now += 60 * MS;
    assertThat(loop.cycle()).isEqualTo(RunLoop.MESSAGES_PER_CYCLE);
    assertThat(loop.busy()).as("behind for 60 ms").isFalse();
    clock.now += 40 * MS;
    assertThat(loop.busy()).as("behind for 100 ms").isTrue();
    while (loop.cycle() > 0) {
      assertThat(loop.busy()).as("still behind").isTrue();
    }
    assertThat(task(0, 0).offsets).hasSize(20_000);
    loop.cycle(); // begins with nothing buffered
    assertThat(loop.busy()).as("caught up").isFalse();
  }

  @Test
  void aTaskThatStaysKeepsRunningWhileAnotherLeavesAndComesBackWhereItWasCommitted()
      throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0, 1)));
    loop.start();
    cycles(loop, 20);
    RecordingTask zero = task(0, 0);
    RecordingTask one = task(1, 0);
    assertThat(zero.offsets).isNotEmpty();
    assertThat(one.offsets).isNotEmpty();

    coordinator.script.add(l -> l.revoked(Set.of(1)));
    nextMembershipPoll(loop);
    // Revoked: committed at its last processed offset, closed, released, unregistered.
    long lastOfOne = one.offsets.get(one.offsets.size() - 1);
    assertThat(checkpoints.latest).containsEntry(new StreamPartition("scripted", "in", 1),
        lastOfOne);
    assertThat(one.closed).isTrue();
    assertThat(released).containsExactly(1);
    assertThat(consumer.calls).contains("unregister 1");
    assertThat(coordinator.listener.tasks()).containsExactly(0);

    int zeroBefore = zero.offsets.size();
    int oneBefore = one.offsets.size();
    cycles(loop, 20);
    assertThat(zero.offsets.size()).as("the task that stayed goes on").isGreaterThan(zeroBefore);
    assertThat(one.offsets).as("the revoked task gets nothing more").hasSize(oneBefore);
    List<Long> zeroSoFar = List.copyOf(zero.offsets);
    for (int i = 0; i < zeroSoFar.size(); i++) {
      assertThat(zeroSoFar.get(i)).as("task 0 saw every offset once, in order").isEqualTo(i);
    }

    // It comes back: a new instance on the freed index, resuming right after its checkpoint.
    coordinator.script.add(l -> l.assigned(Set.of(0, 1)));
    untilStarted(loop, 1);
    assertThat(consumer.calls).endsWith("register 1=p1");
    cycles(loop, 10);
    RecordingTask back = task(1, 1);
    assertThat(back.offsets).isNotEmpty();
    assertThat(back.offsets.get(0)).isEqualTo(lastOfOne + 1);
  }

  /** Runs cycles until the condition holds, for at most 10 s of real time. */
  private static void cyclesUntil(RunLoop loop, java.util.function.BooleanSupplier condition)
      throws Exception {
    long deadline = System.nanoTime() + 10_000 * MS;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("waited 10 s for a condition").isNegative();
      assertThat(loop.cycle()).isNotNegative();
    }
  }

  /**
   * Cycles, the clock standing still (the end of a commit's step in the background is an event),
   * until a checkpoint is written.
   */
  private void cyclesUntilACheckpoint(RunLoop loop) throws Exception {
    cyclesUntil(loop, () -> checkpoints.writes > 0);
  }

  /**
   * A container running {@code tasks} with output {@code gated}, whose periodic commit (every
   * 100 ms) has just begun: offsets noted, the acknowledgements to be awaited in the background.
   */
  private RunLoop commitJustBegun(GatedProducer gated, Set<Integer> tasks) throws Exception {
    output = gated;
    commitNanos = 100 * MS;
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(tasks));
    loop.start();
    cycles(loop, 5);
    clock.now += commitNanos;
    assertThat(loop.cycle()).isNotNegative();
    return loop;
  }

  private static final StreamPartition P0 = new StreamPartition("scripted", "in", 0);

  @Test
  void aPeriodicCommitWaitsForTheAcknowledgementsInTheBackgroundWhileTheTasksGoOn()
      throws Exception {
    GatedProducer gated = new GatedProducer();
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    RecordingTask zero = task(0, 0);
    long noted = zero.offsets.get(zero.offsets.size() - 1);
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());

    int before = zero.offsets.size();
    cycles(loop, 20);
    clock.now += 10 * MS;
    cycles(loop, 20);
    assertThat(zero.offsets.size()).as("the task goes on while the commit waits")
        .isGreaterThan(before);
    assertThat(checkpoints.writes).as("no checkpoint before the acknowledgements").isZero();
    assertThat(gated.flushThreads).containsExactly("millrace-commit-0");

    gated.gate.countDown();
    cyclesUntilACheckpoint(loop);
    assertThat(checkpoints.latest).as("the offsets noted when the commit began, not later ones")
        .containsEntry(P0, noted);
    assertThat(checkpoints.writes).isEqualTo(1);
  }

  @Test
  void aTransactionsOffsetsAreTakenAsItCommitsSoItHoldsWhatTheTasksSentDuringTheWaits()
      throws Exception {
    GatedProducer gated = new GatedProducer();
    checkpoints.transactional = true;
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    RecordingTask zero = task(0, 0);
    long atBegin = zero.offsets.get(zero.offsets.size() - 1);
    java.util.concurrent.atomic.AtomicLong atWrite = new java.util.concurrent.atomic.AtomicLong();
    checkpoints.onHold = () -> atWrite.set(lastOf(zero)); // on the loop, as the offsets are taken
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    cycles(loop, 20); // the task sends more into the open transaction

    gated.gate.countDown();
    cyclesUntilACheckpoint(loop);
    long atCommit = atWrite.get();
    assertThat(atCommit).isGreaterThan(atBegin);
    assertThat(checkpoints.latest).as("the offsets as the transaction commits")
        .containsEntry(P0, atCommit);
  }

  @Test
  void underExactlyOnceACommitWaitsInTheBackgroundWhereItsTransactionHoldsEverySend()
      throws Exception {
    exactlyOnce = true;
    checkpoints.transactional = true;
    GatedProducer gated = new GatedProducer();
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    RecordingTask zero = task(0, 0);
    java.util.concurrent.atomic.AtomicLong atWrite = new java.util.concurrent.atomic.AtomicLong();
    checkpoints.onHold = () -> atWrite.set(lastOf(zero)); // on the loop, as the offsets are taken
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    int before = zero.offsets.size();
    cycles(loop, 20);
    assertThat(zero.offsets.size()).as("the task goes on while the commit waits")
        .isGreaterThan(before);
    assertThat(gated.flushThreads).containsExactly("millrace-commit-0");

    gated.gate.countDown();
    cyclesUntilACheckpoint(loop);
    assertThat(checkpoints.latest).as("the offsets as the transaction commits: exactly what it "
        + "holds").containsEntry(P0, atWrite.get());
  }

  /** The offset of the last message {@code task} processed. */
  private static long lastOf(RecordingTask task) {
    return task.offsets.get(task.offsets.size() - 1);
  }

  @Test
  void aTransactionWrittenBesideTheLoopHoldsWhatItsOffsetsCoverWhileTheTasksGoOn()
      throws Exception {
    GatedProducer gated = new GatedProducer();
    checkpoints.transactional = true;
    checkpoints.writeGate = new java.util.concurrent.CountDownLatch(1);
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    RecordingTask zero = task(0, 0);
    java.util.concurrent.atomic.AtomicLong atHold = new java.util.concurrent.atomic.AtomicLong();
    checkpoints.onHold = () -> atHold.set(lastOf(zero));
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    gated.gate.countDown();
    cyclesUntil(loop, () -> !checkpoints.writeThreads.isEmpty());

    int before = zero.offsets.size();
    cycles(loop, 20);
    assertThat(zero.offsets.size()).as("the task goes on while the transaction commits")
        .isGreaterThan(before);
    assertThat(checkpoints.writes).isZero();
    checkpoints.writeGate.countDown();
    cyclesUntilACheckpoint(loop);
    assertThat(checkpoints.latest).as("the offsets where the loop's sends were held")
        .containsEntry(P0, atHold.get());
    assertThat(lastOf(zero)).isGreaterThan(atHold.get());
    assertThat(checkpoints.holdThreads).containsExactly(Thread.currentThread().getName());
    assertThat(checkpoints.writeThreads).containsExactly("millrace-commit-0");
  }

  @Test
  void aWholeCommitAfterAWriteBesideTheLoopFailedThrowsItInsteadOfCommittingPastIt()
      throws Exception {
    GatedProducer gated = new GatedProducer();
    checkpoints.transactional = true;
    checkpoints.failNextWrite = true;
    checkpoints.writeGate = new java.util.concurrent.CountDownLatch(1);
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    gated.gate.countDown();
    cyclesUntil(loop, () -> !checkpoints.writeThreads.isEmpty());
    cycles(loop, 5);

    // A task asks for a commit (a whole one) while the write fails: the offsets it would take
    // cover outputs that the failed write aborted.
    checkpoints.writeGate.countDown();
    assertThatThrownBy(loop::commit)
        .hasMessageContaining("the commit's transaction (test-c0) failed and was aborted");
    assertThat(checkpoints.writes).as("no checkpoint past the aborted transaction").isZero();
  }

  @Test
  void theMembershipIsNotPolledWhileATransactionCommitsBesideTheLoopThenTheRevokeCommitsAgain()
      throws Exception {
    GatedProducer gated = new GatedProducer();
    checkpoints.transactional = true;
    checkpoints.writeGate = new java.util.concurrent.CountDownLatch(1);
    RunLoop loop = commitJustBegun(gated, Set.of(0, 1));
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    gated.gate.countDown();
    cyclesUntil(loop, () -> !checkpoints.writeThreads.isEmpty());
    coordinator.script.add(l -> l.revoked(Set.of(0)));

    // A poll could rejoin the group, whose next generation would refuse the committing
    // transaction's offsets: the membership's thread waits for the write's end to poll.
    cycles(loop, 20); // task 0 processes more than the committing transaction's offsets cover
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "the membership's thread waiting for the permit the write holds",
        () -> waitsForThePermit("millrace-membership-0"));
    RecordingTask zero = task(0, 0);
    assertThat(coordinator.script).as("not polled while the write is on its way").hasSize(1);
    assertThat(zero.closed).isFalse();

    checkpoints.writeGate.countDown();
    cyclesUntil(loop, () -> zero.closed);
    assertThat(checkpoints.latest).as("the revoke's commit: up to the revoke")
        .containsEntry(P0, lastOf(zero));
    assertThat(checkpoints.writes).as("the write on its way, and the revoke's").isEqualTo(2);
  }

  /** Whether the thread named so is parked acquiring the membership's ownership permit. */
  private static boolean waitsForThePermit(String threadName) {
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      if (!e.getKey().getName().equals(threadName)) {
        continue;
      }
      boolean inRunner = false;
      boolean acquiring = false;
      for (StackTraceElement frame : e.getValue()) {
        inRunner |= frame.getClassName().equals(MembershipRunner.class.getName());
        acquiring |= frame.getMethodName().startsWith("acquire");
      }
      return inRunner && acquiring;
    }
    return false;
  }

  @Test
  void underExactlyOnceACommitWhoseCheckpointIsNotTheTransactionsRunsWholeOnTheLoop()
      throws Exception {
    exactlyOnce = true;
    GatedProducer gated = new GatedProducer();
    gated.gate.countDown(); // a whole commit waits on the loop: nothing to hold it here
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    RecordingTask zero = task(0, 0);
    assertThat(checkpoints.writes).as("written in the cycle the commit was due").isEqualTo(1);
    assertThat(gated.flushThreads).containsExactly(Thread.currentThread().getName());
    assertThat(checkpoints.latest.get(P0)).isEqualTo(zero.offsets.get(zero.offsets.size() - 1));
  }

  @Test
  void aTaskThatStaysIsDeliveredToWhileARevokesCommitWaitsInTheBackground() throws Exception {
    GatedProducer gated = new GatedProducer();
    output = gated;
    commitNanos = 60_000 * MS; // no periodic commit here: only the revoke's
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0, 1)));
    loop.start();
    cycles(loop, 5);
    RecordingTask zero = task(0, 0);
    RecordingTask one = task(1, 0);
    int zeroBefore = zero.offsets.size();
    // The gate opens once task 0 got more while the revoke waits (or after 10 s: it fails then).
    java.util.concurrent.atomic.AtomicBoolean grew = new java.util.concurrent.atomic.AtomicBoolean();
    Thread opener = new Thread(() -> {
      long deadline = System.nanoTime() + 10_000 * MS;
      while (System.nanoTime() - deadline < 0) {
        if (!gated.flushThreads.isEmpty() && zero.offsets.size() > zeroBefore + 50) {
          grew.set(true);
          break;
        }
        Thread.onSpinWait();
      }
      gated.gate.countDown();
    });
    opener.start();
    coordinator.script.add(l -> l.revoked(Set.of(1)));
    nextMembershipPoll(loop); // returns once the revoke's commit is written
    opener.join();

    assertThat(grew).as("task 0 went on while the revoke's commit waited").isTrue();
    assertThat(gated.flushThreads).containsExactly("millrace-commit-0");
    assertThat(checkpoints.latest).containsEntry(new StreamPartition("scripted", "in", 1),
        one.offsets.get(one.offsets.size() - 1));
    assertThat(one.closed).isTrue();
    assertThat(coordinator.listener.tasks()).containsExactly(0);
  }

  @Test
  void aRevokeDuringACommitInTheBackgroundCommitsWhatTheTaskProcessedUpToTheRevoke()
      throws Exception {
    GatedProducer gated = new GatedProducer();
    RunLoop loop = commitJustBegun(gated, Set.of(0, 1));
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    cycles(loop, 20);

    gated.gate.countDown(); // the revoke ends the commit on its way, then commits its own
    coordinator.script.add(l -> l.revoked(Set.of(0)));
    nextMembershipPoll(loop);
    RecordingTask zero = task(0, 0);
    assertThat(checkpoints.latest).containsEntry(P0, zero.offsets.get(zero.offsets.size() - 1));
    assertThat(checkpoints.writes).as("the commit on its way, and the revoke's").isEqualTo(2);
    assertThat(zero.closed).isTrue();
    assertThat(gated.flushThreads).containsOnly("millrace-commit-0");
  }

  @Test
  void aCommitInTheBackgroundWhoseTasksChangedBeginsAgainWithTheirNewLayout() throws Exception {
    GatedProducer gated = new GatedProducer();
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());
    coordinator.script.add(l -> l.assigned(Set.of(0, 1))); // task 1 arrives meanwhile
    untilStarted(loop, 1);
    cycles(loop, 10);

    gated.gate.countDown();
    cyclesUntilACheckpoint(loop);
    assertThat(gated.flushThreads).as("begun again: a second wait for the acknowledgements")
        .hasSize(2).containsOnly("millrace-commit-0");
    assertThat(checkpoints.latest).containsKeys(P0, new StreamPartition("scripted", "in", 1));
  }

  @Test
  void aCommitThatFailsInTheBackgroundFailsTheLoopWithoutWritingACheckpoint() throws Exception {
    GatedProducer gated = new GatedProducer();
    gated.failure = new io.millrace.spi.system.OutputFailedException("a record sent to topic "
        + "out was not acknowledged", null);
    gated.gate.countDown();
    RunLoop loop = commitJustBegun(gated, Set.of(0));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> cyclesUntil(loop, () -> false)).isInstanceOf(io.millrace.spi.system.OutputFailedException.class)
        .hasMessageContaining("not acknowledged");
    assertThat(checkpoints.writes).isZero();
  }

  @Test
  void withAnOutputThatCannotFlushBesideSendsTheWholeCommitRunsOnTheLoop() throws Exception {
    commitNanos = 100 * MS;
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 5);
    clock.now += commitNanos;
    assertThat(loop.cycle()).isNotNegative();
    RecordingTask zero = task(0, 0);
    assertThat(checkpoints.writes).as("written in the cycle the commit was due").isEqualTo(1);
    assertThat(checkpoints.latest).containsKey(P0);
    assertThat(checkpoints.latest.get(P0)).isLessThanOrEqualTo(
        zero.offsets.get(zero.offsets.size() - 1));
  }

  @Test
  void anIndexFreedByOneTaskIsGivenToTheNextTaskAssigned() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0, 1, 2)));
    loop.start();
    cycles(loop, 5);
    coordinator.script.add(l -> l.revoked(Set.of(1)));
    coordinator.script.add(l -> l.assigned(Set.of(7)));
    untilStarted(loop, 7);
    assertThat(consumer.calls).containsExactly("register 0=p0", "register 1=p1",
        "register 2=p2", "unregister 1", "register 1=p7");
    cycles(loop, 10);
    assertThat(task(7, 0).offsets).startsWith(0L, 1L, 2L);
    assertThat(loop.partitions()).extracting(PartitionState::index).containsExactly(0, 1, 2);
  }

  @Test
  void revokeDuringAsyncWorkCommitsOnlyWhatCompletedAndIgnoresLateCallbacks() throws Exception {
    RunLoop loop = container(true, 4, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 3);
    HoldingTask task = (HoldingTask) built.get(0).get(0);
    assertThat(task.held.keySet()).containsExactly(0L, 1L, 2L, 3L); // at its concurrency
    task.held.get(0L).complete();
    task.held.get(1L).complete();
    task.held.get(3L).complete(); // done, but behind offset 2, which is not
    cycles(loop, 1);

    coordinator.script.add(l -> l.revoked(Set.of(0)));
    nextMembershipPoll(loop);
    StreamPartition p0 = new StreamPartition("scripted", "in", 0);
    assertThat(checkpoints.latest).as("the watermark: below it everything completed")
        .containsEntry(p0, 1L);
    int writes = checkpoints.writes;

    assertThat(output.sent).as("outputs of the completed messages only")
        .containsExactly("0-0", "0-1", "0-3");
    task.held.get(2L).complete(); // late: its task has left
    cycles(loop, 3);
    assertThat(checkpoints.writes).isEqualTo(writes);
    assertThat(output.sent).as("a late callback sends nothing").hasSize(3);

    // Back again: it resumes at the first message that had not completed below the watermark.
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    nextMembershipPoll(loop);
    cycles(loop, 2);
    HoldingTask again = (HoldingTask) built.get(0).get(1);
    assertThat(again.held.keySet()).startsWith(2L, 3L);
    assertThat(output.sent).as("the late callback's output never came, before or after")
        .containsExactly("0-0", "0-1", "0-3");
  }

  @Test
  void revokeWaitsForMessagesInFlightThatCompleteWithinTheSettleTime() throws Exception {
    RunLoop loop = container(true, 4, 10_000 * MS);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 3);
    HoldingTask task = (HoldingTask) built.get(0).get(0);
    assertThat(task.held).hasSize(4);
    coordinator.script.add(l -> l.revoked(Set.of(0)));
    cyclesUntil(loop, loop::revoking); // the revoke settles its messages in flight
    cycles(loop, 20);
    assertThat(checkpoints.latest).as("nothing committed while they may still complete")
        .doesNotContainKey(new StreamPartition("scripted", "in", 0));

    task.held.values().forEach(TaskCallback::complete); // within the settle time
    nextMembershipPoll(loop);
    assertThat(checkpoints.latest).containsEntry(new StreamPartition("scripted", "in", 0), 3L);
  }

  /** A container running task 0 takes {@link #SLOW}, whose restore then runs until released. */
  private RunLoop restoringBesideTaskZero() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 10);
    coordinator.script.add(l -> l.assigned(Set.of(0, SLOW)));
    nextMembershipPoll(loop);
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "the restore running on the state updater", () -> !restoreThreads.isEmpty());
    return loop;
  }

  @Test
  void aTaskRestoringBesideTheOthersStartsOnlyOnceRestoredWhileTheOthersKeepRunning()
      throws Exception {
    RunLoop loop = restoringBesideTaskZero();
    assertThat(restoreThreads).containsExactly("millrace-restore-0");
    assertThat(coordinator.listener.tasks()).as("a restoring task is the container's")
        .containsExactlyInAnyOrder(0, SLOW);

    RecordingTask zero = task(0, 0);
    int before = zero.offsets.size();
    for (int i = 0; i < 5; i++) {
      nextMembershipPoll(loop); // polls come and go: the restore is not done
      cycles(loop, 10);
    }
    assertThat(zero.offsets.size()).as("the other task runs on").isGreaterThan(before);
    assertThat(task(SLOW, 0).offsets).as("nothing delivered while restoring").isEmpty();
    assertThat(attached).isEmpty();

    restoreGate.countDown();
    // A membership poll after the restore's end starts the task (the restore thread completes
    // the restore's future a moment after restore() returns): polls come until one has.
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "the restored task started at a membership poll", () -> {
          nextMembershipPoll(loop);
          return !attached.isEmpty();
        });
    cycles(loop, 10);
    assertThat(attached).containsExactly(SLOW);
    assertThat(task(SLOW, 0).offsets).isNotEmpty().startsWith(0L);
    assertThat(coordinator.startedLater).as("the membership learns when it started")
        .containsExactly(Set.of(SLOW));
  }

  @Test
  void aTaskTakenWithASlowOneStartsAsSoonAsItsOwnStoresAreRestored() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 10);
    coordinator.script.add(l -> l.assigned(Set.of(0, 2, SLOW)));
    nextMembershipPoll(loop);
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "task 2 started while SLOW still restores", () -> {
          nextMembershipPoll(loop);
          return attached.contains(2);
        });
    cycles(loop, 10);
    assertThat(task(2, 0).offsets).as("task 2 runs").isNotEmpty();
    assertThat(task(SLOW, 0).offsets).as("SLOW still restoring").isEmpty();
    assertThat(coordinator.listener.tasks()).containsExactlyInAnyOrder(0, 2, SLOW);

    // Revoking SLOW now cancels only its restore: task 2 is attached and stays.
    coordinator.script.add(l -> l.revoked(Set.of(SLOW)));
    nextMembershipPoll(loop);
    assertThat(abandoned).containsExactly(SLOW);
    assertThat(coordinator.listener.tasks()).containsExactlyInAnyOrder(0, 2);
    int before = task(2, 0).offsets.size();
    cycles(loop, 10);
    assertThat(task(2, 0).offsets.size()).isGreaterThan(before);
  }

  /**
   * Task 0 running; task SLOW_TO_PREPARE assigned beside it, its preparation held at {@link
   * #prepareGate} on the state updater.
   */
  private RunLoop preparingBesideTaskZero() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 10);
    assertThat(prepareThreads).as("nothing else to run: prepared on the loop")
        .containsExactly(Thread.currentThread().getName());

    coordinator.script.add(l -> l.assigned(Set.of(0, SLOW_TO_PREPARE)));
    nextMembershipPoll(loop); // returns while the preparation waits
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "the preparation running", () -> prepareThreads.size() == 2);
    return loop;
  }

  /**
   * Runs a membership poll whose script makes the loop wait for the held preparation: the gate
   * is opened from a thread of its own once the loop thread waits (the loop cannot open it).
   */
  private void pollOpeningThePrepareGateOnceTheLoopWaits(RunLoop loop) throws Exception {
    Thread loopThread = Thread.currentThread();
    Thread opener = new Thread(() -> {
      try {
        io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
            "the loop waiting for the preparation",
            () -> loopThread.getState() == Thread.State.WAITING);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      } finally {
        prepareGate.countDown();
      }
    });
    opener.start();
    nextMembershipPoll(loop);
    opener.join();
  }

  @Test
  void anArrivingTaskIsPreparedOnTheRestoreThreadWhileTheOthersKeepRunning() throws Exception {
    RunLoop loop = preparingBesideTaskZero();
    assertThat(prepareThreads.get(1)).isEqualTo("millrace-restore-0");
    assertThat(coordinator.listener.tasks()).as("a task being prepared is the container's")
        .containsExactlyInAnyOrder(0, SLOW_TO_PREPARE);
    RecordingTask zero = task(0, 0);
    int before = zero.offsets.size();
    for (int i = 0; i < 5; i++) {
      nextMembershipPoll(loop);
      cycles(loop, 10);
    }
    assertThat(zero.offsets.size()).as("the other task runs on").isGreaterThan(before);
    assertThat(consumer.calls).as("not registered before it is prepared")
        .noneMatch(call -> call.endsWith("=p" + SLOW_TO_PREPARE));

    prepareGate.countDown();
    untilStarted(loop, SLOW_TO_PREPARE);
    cycles(loop, 10);
    assertThat(task(SLOW_TO_PREPARE, 0).offsets).isNotEmpty().startsWith(0L);
  }

  @Test
  void aTaskRevokedWhileBeingPreparedIsGivenUpOnceItsPreparationEndsAndNeverStarts()
      throws Exception {
    RunLoop loop = preparingBesideTaskZero();

    // The revoke waits for the preparation to end.
    coordinator.script.add(l -> l.revoked(Set.of(SLOW_TO_PREPARE)));
    pollOpeningThePrepareGateOnceTheLoopWaits(loop);

    assertThat(released).as("what its preparation opened is closed").contains(SLOW_TO_PREPARE);
    assertThat(coordinator.listener.tasks()).containsExactly(0);
    for (int i = 0; i < 3; i++) {
      nextMembershipPoll(loop);
      cycles(loop, 10);
    }
    assertThat(loop.tasks()).extracting(t -> t.number).containsExactly(0);
    assertThat(consumer.calls).noneMatch(call -> call.endsWith("=p" + SLOW_TO_PREPARE));
  }

  @Test
  void aTaskRevokedWhileQueuedBehindAnotherPreparationIsNeverPreparedAndItsClaimIsLetGo()
      throws Exception {
    RunLoop loop = preparingBesideTaskZero();
    coordinator.script.add(l -> l.assigned(Set.of(0, SLOW_TO_PREPARE, 5))); // queued behind it
    nextMembershipPoll(loop);

    // The revoke waits for the queued batch to come out of the queue.
    coordinator.script.add(l -> l.revoked(Set.of(5)));
    pollOpeningThePrepareGateOnceTheLoopWaits(loop);

    assertThat(unclaimed).as("its claim let go without a preparation").containsExactly(Set.of(5));
    untilStarted(loop, SLOW_TO_PREPARE);
    assertThat(prepareThreads).as("task 5 was never prepared").hasSize(2);
    assertThat(consumer.calls).noneMatch(call -> call.endsWith("=p5"));
    assertThat(coordinator.listener.tasks()).containsExactlyInAnyOrder(0, SLOW_TO_PREPARE);
  }

  @Test
  void aTaskRevokedWhileRestoringHasItsRestoreCancelledAndNeverStarts() throws Exception {
    RunLoop loop = restoringBesideTaskZero();

    coordinator.script.add(l -> l.revoked(Set.of(SLOW)));
    nextMembershipPoll(loop);
    assertThat(restoreEnded).as("cancelled, and waited for").isTrue();
    assertThat(abandoned).containsExactly(SLOW);
    assertThat(attached).isEmpty();
    assertThat(coordinator.listener.tasks()).containsExactly(0);
    cycles(loop, 10);
    assertThat(task(SLOW, 0).offsets).isEmpty();
    assertThat(consumer.calls).noneMatch(call -> call.endsWith("=p" + SLOW));
  }

  @Test
  void aTaskBeingRevokedGetsNoWindowWhileItsCommitWaitsAndTheOthersDo() throws Exception {
    GatedProducer gated = new GatedProducer();
    output = gated;
    commitNanos = 60_000 * MS; // only the revoke's commit
    windowNanos = 10 * MS;
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0, 1)));
    loop.start();
    cycles(loop, 5);
    WindowedTask zero = (WindowedTask) built.get(0).get(0);
    WindowedTask one = (WindowedTask) built.get(1).get(0);
    coordinator.script.add(l -> l.revoked(Set.of(1)));
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty()); // its commit waits at the gate
    int zeroWindows = zero.windows.get();
    int oneWindows = one.windows.get();

    for (int i = 0; i < 5; i++) {
      clock.now += windowNanos;
      cycles(loop, 1);
    }
    assertThat(zero.windows.get()).as("the task that stays").isEqualTo(zeroWindows + 5);
    assertThat(one.windows.get()).as("the task leaving: nothing sent after its offsets")
        .isEqualTo(oneWindows);

    gated.gate.countDown();
    nextMembershipPoll(loop);
    assertThat(one.closed).isTrue();
  }

  @Test
  void aRestoreThatFailsBesideRunningTasksFailsTheContainer() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 5);
    coordinator.script.add(l -> l.assigned(Set.of(0, FAILS_TO_RESTORE)));

    assertThatThrownBy(() -> cyclesUntil(loop, () -> false))
        .hasMessageContaining("the changelog of task 11 cannot be read");
    assertThat(abandoned).as("what its preparation opened, given up").contains(FAILS_TO_RESTORE);
  }

  @Test
  void aStopAskedForDuringARevokeEndsTheRevokeFirst() throws Exception {
    GatedProducer gated = new GatedProducer();
    output = gated;
    commitNanos = 60_000 * MS;
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0, 1)));
    loop.start();
    cycles(loop, 5);
    AtomicBoolean revokeReturned = new AtomicBoolean();
    coordinator.script.add(l -> {
      l.revoked(Set.of(1));
      revokeReturned.set(true);
    });
    cyclesUntil(loop, () -> !gated.flushThreads.isEmpty());

    loop.requestStop();
    cycles(loop, 5); // not -1: the revoke's commit waits, and the membership for it
    gated.gate.countDown();
    int cycle;
    long deadline = System.nanoTime() + 10_000 * MS;
    while ((cycle = loop.cycle()) >= 0) {
      assertThat(System.nanoTime() - deadline).as("the loop stops").isNegative();
    }
    assertThat(task(1, 0).closed).as("revoked: committed and closed").isTrue();
    io.millrace.core.testing.Await.until(java.time.Duration.ofSeconds(10),
        "the membership's revoke call returned", revokeReturned::get);
    assertThat(checkpoints.latest).containsKey(new StreamPartition("scripted", "in", 1));
  }

  @Test
  void lostTasksCloseWithoutACommit() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 10);
    int writes = checkpoints.writes;
    coordinator.script.add(l -> l.lost(Set.of(0)));
    nextMembershipPoll(loop);
    assertThat(checkpoints.writes).as("nothing written for a lost task").isEqualTo(writes);
    assertThat(task(0, 0).closed).isTrue();
    assertThat(consumer.calls).contains("unregister 0");
    assertThat(released).containsExactly(0);
  }

  @Test
  void aContainerWithoutTasksWaitsForItsMembershipAndLeavesWhenStopped() throws Exception {
    RunLoop loop = container(false, 1, 0);
    loop.start();
    for (int i = 0; i < 3; i++) {
      assertThat(loop.cycle()).as("no tasks yet: waiting, not done").isZero();
      clock.now += POLL_INTERVAL;
    }
    coordinator.script.add(l -> l.assigned(Set.of(3)));
    nextMembershipPoll(loop);
    cycles(loop, 5);
    assertThat(task(3, 0).offsets).isNotEmpty();

    loop.requestStop();
    assertThat(loop.cycle()).isEqualTo(-1);
  }

  @Test
  void aCleanStopCommitsAndThenLeavesTheJob() throws Exception {
    RunLoop loop = container(false, 1, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    Thread thread = new Thread(() -> {
      try {
        loop.run();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    thread.start();
    long deadline = System.nanoTime() + 10_000 * MS;
    while (built.get(0) == null || task(0, 0).offsets.size() < 10) {
      assertThat(System.nanoTime()).as("task 0 running").isLessThan(deadline);
      Thread.sleep(1);
    }
    loop.requestStop();
    thread.join(10_000);
    assertThat(thread.isAlive()).isFalse();
    assertThat(coordinator.left).isTrue();
    List<Long> seen = task(0, 0).offsets;
    assertThat(checkpoints.latest).containsEntry(new StreamPartition("scripted", "in", 0),
        seen.get(seen.size() - 1));
  }

  @Test
  void aTaskOnAWorkerThreadIsClosedOnlyAfterTheWorkerLeavesIt() throws Exception {
    poolTask = true;
    RunLoop loop = container(true, 4, 0);
    coordinator.script.add(l -> l.assigned(Set.of(0)));
    loop.start();
    cycles(loop, 2);
    assertThat(BlockingTask.inside.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    Thread loopThread = Thread.currentThread();
    AtomicBoolean waited = new AtomicBoolean();
    Thread releaser = new Thread(() -> {
      waited.set(waitUntilIn(loopThread, "awaitWorkers")); // while the revoke waits for it
      BlockingTask.release.countDown();
    });
    coordinator.script.add(l -> {
      releaser.start();
      l.revoked(Set.of(0)); // settle time 0: its message is abandoned, but it is still running
    });
    nextMembershipPoll(loop);
    releaser.join();
    assertThat(waited).as("released while the revoke waited for the worker").isTrue();
    assertThat(BlockingTask.events).containsExactly("process in", "process out", "close");
  }

  /**
   * Waits (10 s at most) until {@code thread} runs inside Delivery's {@code method}: a step of the
   * test that must happen while the loop waits there, and not before it.
   *
   * @return false if it never got there
   */
  private static boolean waitUntilIn(Thread thread, String method) {
    long deadline = System.nanoTime() + 10_000 * MS;
    while (System.nanoTime() < deadline) {
      for (StackTraceElement frame : thread.getStackTrace()) {
        if (frame.getClassName().equals(Delivery.class.getName())
            && frame.getMethodName().equals(method)) {
          return true;
        }
      }
      Thread.onSpinWait();
    }
    return false;
  }
}
