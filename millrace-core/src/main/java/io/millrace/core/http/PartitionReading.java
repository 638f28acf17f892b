package io.millrace.core.http;

import io.millrace.core.loop.PartitionState;
import io.millrace.core.system.MessageCounting;
import io.millrace.spi.checkpoint.CheckpointStore;

/**
 * What the status page and metrics show of one input partition now, in messages whatever its
 * offsets are: a file's offsets are byte positions, so its consumer's line counts stand in for
 * them (and its lag is an estimate from the bytes left).
 *
 * @param messages a position in messages that grows by one per message delivered to the task
 *     (differences of it are rates; its origin means nothing)
 * @param lag messages not yet processed (-1: unknown)
 * @param lagEstimated whether {@code lag} is an estimate (a file's: its bytes left at the mean
 *     line length so far)
 * @param progress the fraction of a bounded input processed since the job started, from 0 to 1,
 *     or -1 for an unbounded one
 */
record PartitionReading(long messages, long lag, boolean lagEstimated, double progress) {
  /** Reads {@code p} (racily: for display), through its consumer's counts if it keeps them. */
  static PartitionReading of(PartitionState p, MessageCounting counting) {
    if (counting != null) {
      return counted(p, counting);
    }
    long last = p.lastOffset();
    long next = last == CheckpointStore.NONE ? p.progressStart() : last + 1;
    return new PartitionReading(next, p.lag(), false, offsetFraction(p, next));
  }

  /** Messages handed over less those still buffered: those delivered to the task. */
  private static PartitionReading counted(PartitionState p, MessageCounting counting) {
    int buffered = p.buffered();
    long delivered = Math.max(0, counting.handedOver(p.index()) - buffered);
    long remaining = counting.remaining(p.index());
    long lag = remaining < 0 ? -1 : remaining + buffered;
    double progress;
    if (p.progressEnd() < 0) {
      progress = -1;
    } else if (lag >= 0) {
      progress = delivered + lag == 0 ? 1 : delivered / (double) (delivered + lag);
    } else {
      long last = p.lastOffset();
      progress = offsetFraction(p, last == CheckpointStore.NONE ? p.progressStart() : last + 1);
    }
    return new PartitionReading(delivered, lag, lag > 0, progress); // 0 at the end is exact
  }

  private static double offsetFraction(PartitionState p, long next) {
    long start = p.progressStart();
    long end = p.progressEnd();
    if (end < 0) {
      return -1;
    }
    if (end <= start) {
      return 1;
    }
    return Math.max(0, Math.min(1, (next - start) / (double) (end - start)));
  }
}
