package io.millrace.core.loop;

import io.millrace.api.Envelope;
import io.millrace.spi.checkpoint.CommitFencedException;
import io.millrace.api.metrics.Counter;
import io.millrace.spi.system.OutputFailedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code task.error.policy} to a message that could not be read or made its task throw.
 * Called only when something went wrong, so it may allocate and log.
 */
final class ErrorHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorHandler.class);
  /** Log the first failures in full, then every 1000th, so a flood of bad input does not flood the log. */
  private static final int LOG_FIRST = 10;

  private final ErrorPolicy policy;
  private final DeadLetters deadLetters;
  private final Counter skipped;
  private final Counter deadLettered;
  /** What a failure under {@code fail} leaves uncommitted, for its message. */
  private final String uncommitted;
  private long failures;

  ErrorHandler(ErrorPolicy policy, boolean exactlyOnce, DeadLetters deadLetters,
      Counter skipped, Counter deadLettered) {
    this.policy = policy;
    this.uncommitted = exactlyOnce ? "nothing since the last commit is committed: its "
        + "transaction is aborted" : "nothing after the previous message is committed";
    this.deadLetters = deadLetters;
    this.skipped = skipped;
    this.deadLettered = deadLettered;
  }

  /** A message could not be deserialized. */
  void unreadable(TaskInstance task, Envelope envelope) {
    handle(task, envelope, envelope.readError(), "read");
  }

  /** The task threw while processing a message. */
  void failed(TaskInstance task, Envelope envelope, Throwable error) {
    handle(task, envelope, error, "process", "task threw on message");
  }

  /**
   * An asynchronous message failed: its callback failed or timed out.
   *
   * @param what what happened, e.g. "callback failed for message"
   */
  void failed(TaskInstance task, Envelope envelope, Throwable error, String what) {
    handle(task, envelope, error, "process", what);
  }

  private void handle(TaskInstance task, Envelope envelope, Throwable error, String stage) {
    handle(task, envelope, error, stage, "cannot deserialize message");
  }

  private void handle(
      TaskInstance task, Envelope envelope, Throwable error, String stage, String what) {
    if (error instanceof CommitFencedException fenced) {
      // A send found the container fenced: its tasks are lost (RunLoop.cycle), which no policy
      // may charge to this message (nothing of its transaction commits anyway).
      throw fenced;
    }
    if (error instanceof OutputFailedException earlier) {
      // A record sent before this message failed: the policy is not this message's to bear (no
      // innocent message skipped or dead-lettered); the container stops, and no checkpoint
      // passes the record that failed.
      throw new TaskFailedException("task " + task.name + " stops: " + earlier.getMessage(),
          earlier);
    }
    String where = "task " + task.name + ", " + envelope.stream() + "/" + envelope.partition()
        + " offset " + envelope.offset();
    if (policy == ErrorPolicy.FAIL) {
      throw new TaskFailedException(what + " at " + where + ": " + error
          + " (task.error.policy=fail; " + uncommitted + ")", error);
    }
    failures++;
    if (failures <= LOG_FIRST || failures % 1000 == 0) {
      LOG.warn("{} at {} ({} so far), policy {}: {}", what, where, failures, policy, error.toString());
    }
    if (policy == ErrorPolicy.SKIP) {
      skipped.inc();
    } else {
      deadLetters.write(envelope, error, stage, where);
      deadLettered.inc();
    }
  }
}
