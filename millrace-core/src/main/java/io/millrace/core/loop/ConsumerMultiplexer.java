package io.millrace.core.loop;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.choose.Chooser;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps every partition's buffer of a container filled from its system consumer.
 *
 * <p>Poll only what is empty: a consumer is asked only for partitions whose buffers are empty, not
 * paused and not ended. While other partitions still hold messages, an empty partition is polled
 * at most every poll interval (per stream), so busy partitions are not interrupted by polls that
 * return little; when every buffer is empty, the empty ones are polled at once, and a lone consumer
 * may block briefly. Polls hand over up to {@code maxMessages} per partition, in one batch.
 *
 * <p>Bounded memory: a batch that takes a partition's buffer past the byte cap pauses the consumer
 * for that partition until the task has taken half of what the buffer held then. Resuming at half,
 * not at empty, keeps a fetch in flight while the task works through the rest: resumed at empty,
 * a busy task waited a fetch's round trip after every buffer-full (issue 35). The buffer still
 * never holds more than the cap plus one batch. The cap is the container's budget divided by its
 * partitions, so it changes when they do.
 *
 * <p>Partitions are {@link #add added} and {@link #remove removed} as the container's tasks
 * change; the poll groups are rebuilt then, never on the per-message path.
 *
 * <p>Loop thread only. It is the {@link BatchSink} the consumers write into during a poll.
 */
public final class ConsumerMultiplexer implements BatchSink {
  /** Told when a partition has ended and its buffer is drained. */
  public interface Listener {
    /** The partition will never have messages again. */
    void finished(PartitionState partition);

    /** The consumer has handed over every message of the partition before {@code nextOffset}. */
    default void positionReached(PartitionState partition, long nextOffset) {}
  }

  private final PartitionTable partitions;
  private final Chooser chooser;
  private final Listener listener;
  private final int maxMessages;
  private long maxBytes;
  private ConsumerPolls[] polls = new ConsumerPolls[0];
  /** Partitions not finished whose buffers are empty. */
  private int emptyCount;
  /** Partitions not finished. */
  private int activeCount;
  /** Earliest time an empty partition is due for a poll while others still have data. */
  private long nextDueNanos = Long.MIN_VALUE;

  /**
   * Creates the multiplexer.
   *
   * @param maxMessages the most messages handed over per poll of one partition
   * @param maxBytes the byte cap of one partition's buffer
   */
  ConsumerMultiplexer(PartitionTable partitions, int maxMessages, long maxBytes, Chooser chooser,
      Listener listener) {
    this.partitions = partitions;
    this.maxMessages = maxMessages;
    this.maxBytes = maxBytes;
    this.chooser = chooser;
    this.listener = listener;
  }

  /** The buffer capacity a new partition starts with (its buffer grows if a poll needs more). */
  int initialBufferCapacity() {
    return Math.min(maxMessages, 1024);
  }

  /** Sets the byte cap of each partition's buffer (when the partition count changed). */
  void setMaxBytes(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** Starts polling partitions just put in the table (and registered with their consumers). */
  void add(List<PartitionState> added) {
    emptyCount += added.size();
    activeCount += added.size();
    regroup(List.of());
    nextDueNanos = Long.MIN_VALUE;
  }

  /**
   * Stops polling partitions that are about to leave the table; their buffered messages are
   * dropped, uncommitted (whoever reads them next resumes after the checkpoint).
   */
  void remove(List<PartitionState> removed) {
    for (PartitionState p : removed) {
      retire(p);
    }
    regroup(removed);
  }

  private void regroup(List<PartitionState> leaving) {
    java.util.Set<PartitionState> gone = java.util.Collections.newSetFromMap(
        new IdentityHashMap<>());
    gone.addAll(leaving);
    Map<SystemConsumer, List<PartitionState>> byConsumer = new IdentityHashMap<>();
    for (int i = 0; i < partitions.limit(); i++) {
      PartitionState p = partitions.get(i);
      if (p != null && !gone.contains(p)) {
        byConsumer.computeIfAbsent(p.consumer, c -> new ArrayList<>()).add(p);
      }
    }
    List<ConsumerPolls> groups = new ArrayList<>();
    byConsumer.forEach((consumer, list) ->
        groups.add(new ConsumerPolls(consumer, list.toArray(new PartitionState[0]))));
    polls = groups.toArray(new ConsumerPolls[0]);
  }

  /** Whether no partition has a message buffered: the tasks have taken all they were given. */
  boolean nothingBuffered() {
    return emptyCount == activeCount;
  }

  /**
   * Polls the partitions that are due.
   *
   * @param now the loop's clock
   * @param idleTimeoutMillis how long a lone consumer may block when nothing at all is buffered
   * @return messages handed over
   */
  public int refill(long now, long idleTimeoutMillis) throws InterruptedException {
    if (emptyCount == 0) {
      return 0;
    }
    boolean nothingBuffered = emptyCount == activeCount;
    if (!nothingBuffered && now < nextDueNanos) {
      return 0;
    }
    long nextDue = Long.MAX_VALUE;
    int handed = 0;
    for (ConsumerPolls group : polls) {
      int count = 0;
      for (PartitionState p : group.partitions) {
        if (p.finished || p.paused || p.ended || !p.buffer.isEmpty()) {
          continue;
        }
        long due = p.lastPollNanos + p.pollIntervalNanos;
        if (nothingBuffered || now - due >= 0) {
          group.scratch[count++] = p.index;
          p.lastPollNanos = now;
          due = now + p.pollIntervalNanos;
        }
        nextDue = Math.min(nextDue, due);
      }
      if (count > 0) {
        long timeout = nothingBuffered && polls.length == 1 ? idleTimeoutMillis : 0;
        handed += group.consumer.poll(group.scratch, count, maxMessages, this, timeout);
      }
    }
    nextDueNanos = nextDue;
    return handed;
  }

  @Override
  public void accept(int index, Envelope[] messages, int from, int count) {
    PartitionState p = partitions.get(index);
    if (count <= 0 || p == null || p.finished) {
      return;
    }
    PartitionBuffer buffer = p.buffer;
    if (buffer.isEmpty()) {
      chooser.available(index);
      emptyCount--;
    }
    buffer.add(messages, from, count);
    long bytes = 0;
    for (int i = from; i < from + count; i++) {
      bytes += messages[i].sizeInBytes();
    }
    p.bufferedBytes += bytes;
    if (!p.paused && p.bufferedBytes > maxBytes) {
      p.paused = true;
      p.sizeAtPause = buffer.size();
      p.consumer.pause(index);
    }
  }

  @Override
  public void endOfStream(int index) {
    PartitionState p = partitions.get(index);
    if (p == null || p.ended) {
      return;
    }
    p.ended = true;
    if (p.buffer.isEmpty()) {
      finish(p);
    }
  }

  @Override
  public void head(int index, long upcomingOffset) {
    PartitionState p = partitions.get(index);
    if (p != null) {
      p.head = upcomingOffset;
    }
  }

  @Override
  public void position(int index, long nextOffset) {
    PartitionState p = partitions.get(index);
    if (p != null && nextOffset > p.position) {
      p.position = nextOffset;
      listener.positionReached(p, nextOffset);
    }
  }

  /**
   * Called after delivering from a partition: an emptied one is {@link #drained}; a paused one
   * whose task has taken half of what it held at the pause is fetched again.
   */
  void delivered(PartitionState p) {
    int left = p.buffer.size();
    if (left == 0) {
      drained(p);
      return;
    }
    if (p.paused && left * 2 <= p.sizeAtPause) {
      // What is left, estimated from the count (the messages of one partition are much alike).
      p.bufferedBytes = p.bufferedBytes * left / Math.max(1, p.sizeAtPause);
      p.paused = false;
      p.consumer.resume(p.index);
    }
  }

  /** Called after delivering from a partition whose buffer is now empty. */
  void drained(PartitionState p) {
    p.bufferedBytes = 0;
    chooser.unavailable(p.index);
    emptyCount++;
    // Due on its own interval, which may come before what the last refill computed from the
    // partitions that were empty then (a real-time partition next to bulk ones).
    nextDueNanos = Math.min(nextDueNanos, p.lastPollNanos + p.pollIntervalNanos);
    if (p.paused) {
      p.paused = false;
      p.consumer.resume(p.index);
    }
    if (p.ended) {
      finish(p);
    }
  }

  /** Stops delivering a partition (its task shut down); buffered messages are dropped, uncommitted. */
  void retire(PartitionState p) {
    if (p.finished) {
      return;
    }
    PartitionBuffer buffer = p.buffer;
    if (buffer.isEmpty()) {
      emptyCount--;
    }
    while (!buffer.isEmpty()) {
      buffer.poll();
    }
    chooser.unavailable(p.index);
    chooser.caughtUp(p.index);
    p.finished = true;
    activeCount--;
  }

  private void finish(PartitionState p) {
    if (p.finished) {
      return;
    }
    p.finished = true;
    emptyCount--;
    activeCount--;
    chooser.caughtUp(p.index);
    listener.finished(p);
  }

  /** Partitions not finished. */
  public int activeCount() {
    return activeCount;
  }

  /** Partitions not finished whose buffers are empty. */
  public int emptyCount() {
    return emptyCount;
  }

  /** Whether any buffer holds messages. */
  public boolean anyBuffered() {
    return emptyCount < activeCount;
  }

  /** The partitions of one consumer, with a scratch array for the indices of one poll. */
  private static final class ConsumerPolls {
    final SystemConsumer consumer;
    final PartitionState[] partitions;
    final int[] scratch;

    ConsumerPolls(SystemConsumer consumer, PartitionState[] partitions) {
      this.consumer = consumer;
      this.partitions = partitions;
      this.scratch = new int[partitions.length];
    }
  }
}
