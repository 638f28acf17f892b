package io.millrace.core.loop;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.api.metrics.Gauge;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.async.Watermark;
import io.millrace.core.commit.CheckpointedInput;

/**
 * Everything a container knows about one input partition it reads: where it comes from, its task,
 * its buffer, how far it is processed, its place in the poll schedule, its flow control and its
 * end. The partition's dense {@link #index} is what consumers, the chooser and the async
 * dispatcher know it by, and what the loop's table is indexed by: nothing on the per-message path
 * looks a partition up by name.
 *
 * <p>Loop thread only, except {@link #lastOffset()}, which progress reporting and metrics read
 * racily from other threads.
 */
public final class PartitionState implements CheckpointedInput {
  final int index;
  final StreamPartition id;
  final StreamSpec stream;
  final TaskInstance task;
  final SystemConsumer consumer;
  final StartPosition start;
  final int priority;
  final long pollIntervalNanos;
  /** For a bootstrap partition, its newest offset when it was assigned (-1: empty). */
  final long newestAtStart;
  final PartitionBuffer buffer;
  /** Where progress is measured from and to (bounded inputs), or -1 for the end. */
  final long progressStart;
  final long progressEnd;

  /** Its metrics, kept to remove exactly these when it leaves (the names outlive it). */
  Gauge lagGauge;
  Gauge bufferedGauge;
  /**
   * The last processed offset (for async tasks: the watermark, below which every message has
   * completed), or {@link CheckpointStore#NONE}. Written once per delivery.
   */
  long lastOffset;

  // The poll schedule and flow control (ConsumerMultiplexer).
  long lastPollNanos;
  boolean paused;
  /** The consumer said the partition ends after what it handed over. */
  boolean ended;
  /** Ended and drained, or retired: never polled or delivered again. */
  boolean finished;
  /** The upcoming offset as the system last reported it (for lag), or -1. */
  long head = -1;
  /** The consumer's position: every message before it was handed over; -1 if unknown. */
  long position = -1;
  /**
   * Bytes in the buffer, compared with the byte cap: exact while filling, estimated from the
   * message count after an early resume (summing sizes as messages leave would cost the delivery
   * path a load per message).
   */
  long bufferedBytes;
  /** Messages in the buffer when it was paused: fetching resumes at half of them. */
  int sizeAtPause;

  // Asynchronous delivery (AsyncDispatcher), when the task is dispatched.
  /** Messages handed out and not yet below the watermark, in offset order; null if inline. */
  Watermark watermark;
  /** The watermark ring is full: the partition waits for its oldest message. */
  boolean blocked;
  /** Its end of stream waits for its messages in flight. */
  boolean finishWhenSettled;

  PartitionState(int index, PartitionSpec spec, TaskInstance task, int bufferCapacity) {
    this.index = index;
    this.id = spec.id();
    this.stream = spec.stream();
    this.task = task;
    this.consumer = spec.consumer();
    this.start = spec.start();
    this.priority = spec.priority();
    this.pollIntervalNanos = spec.pollIntervalNanos();
    this.newestAtStart = spec.newestAtStart();
    this.progressStart = spec.progressStart();
    this.progressEnd = spec.progressEnd();
    this.lastOffset = spec.checkpointed();
    this.buffer = new PartitionBuffer(bufferCapacity);
  }

  /** The partition's dense index in its container. */
  public int index() {
    return index;
  }

  /** The partition: system, stream id, number. */
  @Override
  public StreamPartition id() {
    return id;
  }

  /** The number of the task that reads it. */
  public int taskNumber() {
    return task.number;
  }

  /** The last processed offset, or {@link CheckpointStore#NONE}; read racily by other threads. */
  @Override
  public long lastOffset() {
    return lastOffset;
  }

  /** Where progress through a bounded input starts (an offset). */
  public long progressStart() {
    return progressStart;
  }

  /** Where a bounded input ends (its upcoming offset at start), or -1 if unbounded. */
  public long progressEnd() {
    return progressEnd;
  }

  /** Messages lagging behind the head as last reported, or -1 if unknown. */
  public long lag() {
    long h = head;
    long last = lastOffset;
    return h < 0 ? -1 : Math.max(0, h - (last == CheckpointStore.NONE ? 0 : last + 1));
  }

  /** Messages in the buffer. */
  public int buffered() {
    return buffer.size();
  }

  /** Whether a bootstrap partition must be read to {@link #newestAtStart} before other input. */
  boolean bootstrapPending(boolean bootstrap) {
    // An empty bootstrap partition, or one already past its head, has nothing to read first.
    return bootstrap && newestAtStart >= 0
        && !(lastOffset != CheckpointStore.NONE && lastOffset >= newestAtStart);
  }
}
