package io.millrace.core.commit;

import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.system.Transaction;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * One commit on its way: its {@linkplain CommitPath path}, its {@linkplain CommitPhase phase},
 * the offsets it checkpoints and when each step ended (for the slow-commit log). Made and moved
 * by {@link Committer}; the loop reads its phase, the commit thread fills in its waits.
 */
final class Commit {
  /** A commit longer than this is logged with the time of each step. */
  private static final long SLOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Its number: commits count from 1 as they begin. */
  final long number;
  final CommitPath path;
  final CheckpointWriter writer;
  /** The writer's transaction if every producer sends in it (see Committer#layout), or null. */
  final Transaction transaction;
  /** The layout's offsets array: each input's last offset, then each changelog's. */
  final long[] offsets;
  final int inputCount;
  /** The stores as this commit sees them, or null without stores. */
  final CommitParticipant.Round stores;
  /** What to wait for the flusher to have done: what the first hand-over gave it. */
  final long handed;
  /** Whether it was begun again because the tasks changed while it waited (once in a row). */
  boolean again;
  /**
   * The phase. Written by the thread that moves the commit on (the loop, or the commit thread for
   * the waits and a write off the loop); read by the loop, after the event that says a step ended.
   */
  volatile CommitPhase phase = CommitPhase.BEGUN;
  /** The waits on the commit thread (null on the loop's path). */
  CompletableFuture<Void> prepared;
  /** The write off the loop, once its offsets are taken (WRITING), or null. */
  CompletableFuture<Void> writing;

  // When each step ended, System.nanoTime(): the log of a slow commit says which one held it.
  final long began;
  final long handedOver;
  long flushed;
  long acknowledged;
  long synced;
  /** When the loop took it up again after its waits. */
  long finishing;
  /** A write off the loop: when the loop's part ended, and when the flusher had sent the rest. */
  long held;
  long sentRest;
  long written;
  long marked;

  Commit(long number, CommitPath path, CheckpointWriter writer, Transaction transaction,
      long[] offsets, int inputCount, CommitParticipant.Round stores, long handed, long began,
      long handedOver) {
    this.number = number;
    this.path = path;
    this.writer = writer;
    this.transaction = transaction;
    this.offsets = offsets;
    this.inputCount = inputCount;
    this.stores = stores;
    this.handed = handed;
    this.began = began;
    this.handedOver = handedOver;
  }

  /** What the loop waits for next: the waits, or the write off the loop. */
  CompletableFuture<Void> step() {
    return writing != null ? writing : prepared;
  }

  /** Whether its offsets were taken for a write off the loop: later ones are the next commit's. */
  boolean offsetsTaken() {
    return writing != null;
  }

  /** Logs how long a commit written off the loop took, step by step, if it was slow. */
  void logWrittenOffLoop(Logger log, int containerId, long ended) {
    Level level = level(log, ended);
    if (level == null) {
      return;
    }
    log.atLevel(level).log("container {}: a commit took {} ms, the loop stopped {} ms of it: "
            + "stores handed over {} ms; in the background: stores flushed {} ms, outputs and "
            + "changelogs acknowledged {} ms, engines synced {} ms; on the loop: stores handed "
            + "over again and sends held {} ms; beside it: the rest sent {} ms, transaction "
            + "committed {} ms, files marked {} ms", containerId,
        ms(ended - began), ms(handedOver - began + held - finishing), ms(handedOver - began),
        ms(flushed - handedOver), ms(acknowledged - flushed), ms(synced - acknowledged),
        ms(held - finishing), ms(sentRest - held), ms(written - sentRest), ms(marked - written));
  }

  /** Logs how long a commit written on the loop took, step by step, if it was slow. */
  void logWrittenOnLoop(Logger log, int containerId, long writeStarted, long ended) {
    Level level = level(log, ended);
    if (level == null) {
      return;
    }
    boolean waitedOffLoop = path != CommitPath.ON_LOOP;
    long stopped = waitedOffLoop ? handedOver - began + ended - finishing : ended - began;
    log.atLevel(level).log("container {}: a commit took {} ms, the loop stopped {} ms of it: "
            + "stores handed over {} ms; {}: stores flushed {} ms, outputs and changelogs "
            + "acknowledged {} ms, engines synced {} ms; on the loop: stores flushed again {} ms, "
            + "checkpoint written {} ms, files marked {} ms", containerId,
        ms(ended - began), ms(stopped), ms(handedOver - began),
        waitedOffLoop ? "in the background" : "on the loop", ms(flushed - handedOver),
        ms(acknowledged - flushed), ms(synced - acknowledged), ms(writeStarted - finishing),
        ms(written - writeStarted), ms(ended - written));
  }

  /** WARN for a slow commit, DEBUG for any where debug is on, else null (nothing to log). */
  private Level level(Logger log, long ended) {
    if (ended - began > SLOW_NANOS) {
      return Level.WARN;
    }
    return log.isDebugEnabled() ? Level.DEBUG : null;
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }
}
