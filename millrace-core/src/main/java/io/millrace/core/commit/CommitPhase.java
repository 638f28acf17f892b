package io.millrace.core.commit;

/**
 * Where one commit is. Every path goes through them in this order; which thread moves it from one
 * to the next is the path's ({@link CommitPath}).
 *
 * <pre>
 *  BEGUN ──> FLUSHING ──> PREPARED ──> [WRITING] ──> WRITTEN ──> MARKED
 *    │           │            │            │
 *    └───────────┴────────────┴────────────┴──> FAILED   (nothing of it is checkpointed)
 * </pre>
 */
public enum CommitPhase {
  /** The stores' dirty entries handed over and each input's last offset taken (on the loop). */
  BEGUN,
  /** Waiting: the flusher done, the producers' acknowledgements in, the engines synced. */
  FLUSHING,
  /** The waits are done: the checkpoint may be written. */
  PREPARED,
  /**
   * The checkpoint's transaction commits on the commit thread while the loop goes on, its sends
   * held ({@link CommitPath#WRITE_OFF_LOOP} only).
   */
  WRITING,
  /** The checkpoint is written: its offsets survive a crash. */
  WRITTEN,
  /**
   * The stores' local files are marked with the changelog offsets the checkpoint holds (under
   * exactly-once, the sealed writes' apply and the marks are handed to the commit thread, after
   * the next commit's waits there at the latest). The commit is over.
   */
  MARKED,
  /**
   * A step failed; nothing after it happened. (A commit dropped before its write, by a whole
   * commit, a loss or a stop, keeps the phase it had reached and is over too.)
   */
  FAILED
}
