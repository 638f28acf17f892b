package io.millrace.core.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.StreamPartition;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.api.metrics.Counter;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * Walks each path of the commit's state machine step by step: the commit thread and the loop's
 * events are queues the test runs by hand, so every phase can be looked at between two steps, and
 * the order of the steps each part takes in is recorded.
 */
class CommitterTest {
  private static final StreamPartition IN = new StreamPartition("memory", "in", 0);
  private static final StreamPartition CHANGELOG = new StreamPartition("memory", "changelog:s", 0);

  /** What happened, in order, across the producer, the stores and the checkpoint writer. */
  private final List<String> steps = new ArrayList<>();
  private final ManualExecutor commitThread = new ManualExecutor();
  private final ManualExecutor loopEvents = new ManualExecutor();
  private final Input input = new Input();
  private final Producer producer = new Producer();
  private final Stores stores = new Stores();
  private final Checkpoints checkpoints = new Checkpoints();
  private final Counter commits = new DefaultMetricsRegistry(false).counter("c", "commits");
  private int stepsEnded;

  @Test
  void onTheLoopEveryPhaseRunsInOrderBeforeTheCommitReturns() {
    Committer committer = committer(false, false);
    input.offset = 7;

    committer.commit();

    assertThat(committer.path()).isEqualTo(CommitPath.ON_LOOP);
    assertThat(committer.phase()).isEqualTo(CommitPhase.MARKED);
    assertThat(steps).containsExactly("hand over", "await handed", "flush", "sync", "seal",
        "write [7, 40]", "mark");
    assertThat(commits.count()).isEqualTo(1);
    assertThat(committer.inProgress()).isFalse();
  }

  @Test
  void inTheBackgroundTheWaitsRunOnTheCommitThreadAndTheLoopWritesOnTheirEndsEvent() {
    Committer committer = committer(true, false);
    input.offset = 7;

    committer.begin();
    assertThat(committer.path()).isEqualTo(CommitPath.WAITS_OFF_LOOP);
    assertThat(committer.phase()).isEqualTo(CommitPhase.BEGUN);
    assertThat(steps).containsExactly("hand over");
    input.offset = 9; // the tasks go on meanwhile

    commitThread.runNext();
    assertThat(committer.phase()).isEqualTo(CommitPhase.PREPARED);
    assertThat(steps).containsExactly("hand over", "await handed", "flush", "sync");
    assertThat(stepsEnded).as("the loop hears of it only through its events").isZero();

    loopEvents.runNext();
    assertThat(stepsEnded).isEqualTo(1);
    committer.finish();

    assertThat(committer.phase()).isEqualTo(CommitPhase.MARKED);
    assertThat(steps).containsExactly("hand over", "await handed", "flush", "sync",
        "await flusher", "seal", "write [7, 40]", "mark");
    assertThat(committer.inProgress()).isFalse();
    assertThat(commits.count()).isEqualTo(1);
  }

  @Test
  void aTransactionHoldingEverySendTakesItsOffsetsAgainWithWhatTheStoresDirtiedMeanwhile() {
    checkpoints.transactional = true;
    stores.threaded = false; // the flusher on the loop: the transaction commits there too
    Committer committer = committer(true, false);
    input.offset = 7;
    committer.begin();
    commitThread.runNext();
    input.offset = 9; // sent into the open transaction during the waits
    loopEvents.runNext();

    committer.finish();

    assertThat(steps).containsExactly("hand over", "await handed", "flush", "sync",
        "hand over", "await handed", "seal", "write [9, 40]", "mark");
    assertThat(committer.path()).isEqualTo(CommitPath.WAITS_OFF_LOOP);
    assertThat(committer.phase()).isEqualTo(CommitPhase.MARKED);
  }

  @Test
  void aTransactionWrittenOffTheLoopHoldsTheLoopsSendsUntilItsEndsEvent() {
    checkpoints.transactional = true;
    Committer committer = committer(true, false);
    input.offset = 7;
    committer.begin();
    assertThat(committer.path()).isEqualTo(CommitPath.WRITE_OFF_LOOP);
    commitThread.runNext();
    loopEvents.runNext();
    input.offset = 9;

    committer.finish(); // the loop's part of the write
    assertThat(committer.phase()).isEqualTo(CommitPhase.WRITING);
    assertThat(committer.offsetsTaken()).isTrue();
    assertThat(committer.inProgress()).isTrue();
    assertThat(steps).containsExactly("hand over", "await handed", "flush", "sync",
        "hand over", "hold sends", "park flusher");

    commitThread.runNext(); // the transaction commits beside the loop
    assertThat(committer.phase()).isEqualTo(CommitPhase.MARKED);
    assertThat(steps).endsWith("await handed", "seal", "write [9, 40]", "unpark flusher",
        "mark");
    assertThat(commits.count()).as("counted once the loop learns of it").isZero();

    loopEvents.runNext();
    assertThat(stepsEnded).isEqualTo(2);
    committer.finish();
    assertThat(steps).endsWith("send held");
    assertThat(committer.inProgress()).isFalse();
    assertThat(commits.count()).isEqualTo(1);
  }

  @Test
  void anOutputOutsideTheWritersTransactionKeepsItsOffsetsTakenAtTheBeginning() {
    checkpoints.transactional = true;
    Producer elsewhere = new Producer() {
      @Override
      public io.millrace.spi.system.Transaction transaction() {
        return null; // a file, another cluster: durable at its own flush only
      }
    };
    Committer committer = new Committer(0, List.of(producer, elsewhere), stores, checkpoints,
        commits, true, false);
    committer.runBackgroundOn(commitThread);
    committer.connect(loopEvents, () -> stepsEnded++);
    committer.layout(new CheckpointedInput[] {input});
    input.offset = 7;
    committer.begin();
    commitThread.runNext();
    input.offset = 9;
    loopEvents.runNext();

    committer.finish();

    assertThat(committer.path()).isEqualTo(CommitPath.WAITS_OFF_LOOP);
    assertThat(committer.takesOffsetsAtWrite()).isFalse();
    assertThat(steps).contains("write [7, 40]").doesNotContain("hold sends");
  }

  @Test
  void underExactlyOnceAnOutputOutsideTheTransactionMakesEveryCommitWhole() {
    checkpoints.transactional = true;
    Producer elsewhere = new Producer() {
      @Override
      public io.millrace.spi.system.Transaction transaction() {
        return null;
      }
    };
    Committer committer = new Committer(0, List.of(producer, elsewhere), stores, checkpoints,
        commits, true, true);
    committer.runBackgroundOn(commitThread);
    committer.layout(new CheckpointedInput[] {input});

    committer.begin();

    assertThat(committer.path()).isEqualTo(CommitPath.ON_LOOP);
  }

  @Test
  void aFailedWaitFailsTheCommitAtItsFinishAndWritesNothing() {
    Committer committer = committer(true, false);
    producer.failNextFlush = true;
    committer.begin();

    commitThread.runNext();
    assertThat(committer.phase()).isEqualTo(CommitPhase.FAILED);
    loopEvents.runNext();

    assertThatThrownBy(committer::finish).hasMessageContaining("flush failed");
    assertThat(steps).noneMatch(step -> step.startsWith("write")).doesNotContain("mark");
    assertThat(checkpoints.written).isEmpty();
    assertThat(commits.count()).isZero();
  }

  @Test
  void aFailedWriteOffTheLoopDropsTheHeldSendsAndIsThrownAtItsFinish() {
    checkpoints.transactional = true;
    checkpoints.failNextWrite = true;
    Committer committer = committer(true, false);
    committer.begin();
    commitThread.runNext();
    loopEvents.runNext();
    committer.finish();

    commitThread.runNext();
    assertThat(committer.phase()).isEqualTo(CommitPhase.FAILED);
    assertThat(steps).contains("drop held").doesNotContain("mark");
    loopEvents.runNext();

    assertThatThrownBy(committer::finish).hasMessageContaining("aborted");
    assertThat(steps).doesNotContain("send held");
    assertThat(commits.count()).isZero();
  }

  @Test
  void whenTheTasksChangedDuringTheWaitsItBeginsAgainWithTheirLayout() {
    Committer committer = committer(true, false);
    committer.begin();
    commitThread.runNext();
    loopEvents.runNext();
    committer.layout(new CheckpointedInput[] {input, new Input()}); // a task restored meanwhile

    committer.finish();

    assertThat(committer.inProgress()).as("begun again, in the background").isTrue();
    assertThat(committer.phase()).isEqualTo(CommitPhase.BEGUN);
    assertThat(checkpoints.written).as("nothing written with the old layout").isEmpty();
    commitThread.runNext();
    loopEvents.runNext();
    committer.finish();
    assertThat(checkpoints.written).hasSize(1);
  }

  @Test
  void underExactlyOnceWithoutATransactionHoldingEverySendTheCommitRunsWholeOnTheLoop() {
    Committer committer = committer(true, true);

    committer.begin();

    assertThat(committer.path()).isEqualTo(CommitPath.ON_LOOP);
    assertThat(committer.phase()).isEqualTo(CommitPhase.MARKED);
    assertThat(commitThread.queue).isEmpty();
  }

  @Test
  void storesWhoseEnginesCannotTakeWritesBesideReadsKeepTheWaitsOnTheLoop() {
    stores.offLoop = false;
    Committer committer = committer(true, false);

    committer.begin();

    assertThat(committer.path()).isEqualTo(CommitPath.ON_LOOP);
    assertThat(committer.phase()).isEqualTo(CommitPhase.MARKED);
  }

  @Test
  void aWholeCommitSettlesTheOneInTheBackgroundFirstAndItsLateEventDoesNothing() {
    Committer committer = committer(true, false);
    committer.begin();
    commitThread.runNext();

    committer.commit(); // a task asked for one: the background one is settled, dropped

    assertThat(committer.path()).isEqualTo(CommitPath.ON_LOOP);
    assertThat(checkpoints.written).hasSize(1);
    loopEvents.runNext();
    assertThat(stepsEnded).as("the dropped commit's event finds nothing to do").isZero();
  }

  @Test
  void aCommitAfterAnotherBeganIsCoveredByIt() {
    Committer committer = committer(true, false);
    committer.begin();
    committer.begin();

    assertThat(commitThread.queue).hasSize(1);
  }

  @Test
  void aContainerThatNeverHeldAPartitionCommitsNothing() {
    Committer committer = new Committer(0, List.of(producer), stores, checkpoints, commits,
        true, false);

    committer.commit();
    committer.begin();

    assertThat(steps).isEmpty();
    assertThat(committer.phase()).isNull();
  }

  private Committer committer(boolean background, boolean exactlyOnce) {
    Committer committer = new Committer(0, List.of(producer), stores, checkpoints, commits,
        background, exactlyOnce);
    committer.runBackgroundOn(commitThread);
    committer.connect(loopEvents, () -> stepsEnded++);
    committer.layout(new CheckpointedInput[] {input});
    return committer;
  }

  /** Runs what is given to it when the test says so. */
  private static final class ManualExecutor implements Executor {
    final Queue<Runnable> queue = new ArrayDeque<>();

    @Override
    public void execute(Runnable command) {
      queue.add(command);
    }

    void runNext() {
      assertThat(queue).as("a step waits to run").isNotEmpty();
      queue.remove().run();
    }
  }

  private static final class Input implements CheckpointedInput {
    long offset = CheckpointStore.NONE;

    @Override
    public StreamPartition id() {
      return IN;
    }

    @Override
    public long lastOffset() {
      return offset;
    }
  }

  private class Producer implements SystemProducer {
    boolean failNextFlush;

    @Override
    public void register(int index, StreamSpec stream, int partitionCount) {}

    @Override
    public void start() {}

    @Override
    public void send(int index, int partition, Object key, Object value, long timestamp) {}

    @Override
    public void flush() {
      if (failNextFlush) {
        failNextFlush = false;
        throw new IllegalStateException("flush failed");
      }
      steps.add("flush");
    }

    @Override
    public boolean concurrentFlush() {
      return true;
    }

    @Override
    public io.millrace.spi.system.Transaction transaction() {
      return checkpoints.transactional ? checkpoints.tx : null;
    }

    @Override
    public void stop() {}
  }

  private final class Stores implements CommitParticipant {
    boolean offLoop = true;
    boolean threaded = true;

    @Override
    public List<StreamPartition> checkpointed() {
      return List.of(CHANGELOG);
    }

    @Override
    public Round round() {
      return new Round() {
        @Override
        public boolean offLoop() {
          return offLoop;
        }

        @Override
        public void beforeCheckpoint(long[] checkpoint, int from) {
          steps.add("sync");
          checkpoint[from] = 40;
        }

        @Override
        public void afterCheckpoint(Executor exactlyOnceAfter) {
          steps.add("mark");
        }
      };
    }

    @Override
    public long handOver() {
      steps.add("hand over");
      return 1;
    }

    @Override
    public void awaitHandedOver(long handed) {
      steps.add("await handed");
    }

    @Override
    public boolean flusherThreaded() {
      return threaded;
    }

    @Override
    public void parkFlusher() {
      steps.add("park flusher");
    }

    @Override
    public void unparkFlusher() {
      steps.add("unpark flusher");
    }

    @Override
    public void awaitFlusher() {
      steps.add("await flusher");
    }

    @Override
    public void seal() {
      steps.add("seal");
    }
  }

  private final class Checkpoints implements CheckpointStore {
    /** Whether a write commits a transaction the producer sends in ({@link #tx}). */
    boolean transactional;
    boolean failNextWrite;
    final io.millrace.spi.system.Transaction tx = new io.millrace.spi.system.Transaction() {
      @Override
      public void holdSends() {
        steps.add("hold sends");
      }

      @Override
      public void sendHeld() {
        steps.add("send held");
      }

      @Override
      public void dropHeldSends() {
        steps.add("drop held");
      }
    };
    final List<long[]> written = new ArrayList<>();

    @Override
    public Map<StreamPartition, Long> read() {
      return Map.of();
    }

    @Override
    public CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
      return new CheckpointWriter() {
        @Override
        public void write(long[] offsets) {
          if (failNextWrite) {
            failNextWrite = false;
            throw new IllegalStateException("the transaction was aborted");
          }
          steps.add("write " + java.util.Arrays.toString(offsets));
          written.add(offsets.clone());
        }

        @Override
        public io.millrace.spi.system.Transaction transaction() {
          return transactional ? tx : null;
        }
      };
    }
  }
}
