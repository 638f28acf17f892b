package io.millrace.core.commit;

import io.millrace.api.StreamPartition;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * What takes part in a commit beside the producers and the checkpoint: a container's stores. Each
 * method is one step of {@link Committer}'s protocol; which thread calls it is said at each.
 */
public interface CommitParticipant {
  /** The changelog partitions a checkpoint holds after the inputs, in order. Loop thread. */
  List<StreamPartition> checkpointed();

  /**
   * What a commit beginning now works on; the same object until the stores change. A commit in
   * the background goes on with the round it began with while the loop attaches other stores.
   * Loop thread.
   */
  Round round();

  /**
   * Step 1 on the loop: every store's dirty entries handed to the flusher (written where they
   * cannot leave the loop). Loop thread.
   *
   * @return what to pass to {@link #awaitHandedOver}
   */
  long handOver();

  /** Waits until the flusher has done everything handed over up to {@code handed}. Any thread. */
  void awaitHandedOver(long handed);

  /** Whether the flusher runs on a thread of its own (a write may then run beside the loop). */
  boolean flusherThreaded();

  /**
   * The flusher finishes what was handed over so far, then waits for {@link #unparkFlusher}.
   * Loop thread.
   */
  void parkFlusher();

  /** Lets the flusher go on after {@link #parkFlusher}. Any thread. */
  void unparkFlusher();

  /** Waits until the flusher has done everything handed to it. Loop thread. */
  void awaitFlusher();

  /**
   * Exactly-once, just before the checkpoint's transaction commits: what the engines staged is
   * sealed as that transaction's writes. The committing thread.
   */
  void seal();

  /** The stores as one commit sees them, from its beginning to its end. */
  interface Round {
    /**
     * Whether the waits after the hand-over may run on another thread while the loop goes on
     * (every engine takes writes beside reads).
     */
    boolean offLoop();

    /**
     * Step 3 (after the producers flushed): syncs the engines and writes the changelog offsets
     * reached into {@code checkpoint} from {@code from} on. The thread that runs the waits.
     */
    void beforeCheckpoint(long[] checkpoint, int from);

    /**
     * Step 5 (the checkpoint is written): marks the local files with the offsets the checkpoint
     * holds; under exactly-once applies the sealed writes first, on {@code exactlyOnceAfter}.
     * The thread that wrote the checkpoint.
     */
    void afterCheckpoint(Executor exactlyOnceAfter);
  }
}
