package io.millrace.core.loop;

import io.millrace.api.Envelope;
import io.millrace.api.system.BatchSink;
import io.millrace.api.system.SystemConsumer;
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
 * <p>Bounded memory: a batch that takes a partition's buffer past {@code maxBytes} pauses the
 * consumer for that partition until the buffer is empty again.
 *
 * <p>Loop thread only. It is the {@link BatchSink} the consumers write into during a poll.
 */
public final class ConsumerMultiplexer implements BatchSink {
  /** Told when a partition has ended and its buffer is drained. */
  public interface Listener {
    /** The partition will never have messages again. */
    void finished(int index);

    /** The consumer has handed over every message of the partition before {@code nextOffset}. */
    default void positionReached(int index, long nextOffset) {}
  }

  private final PartitionBuffer[] buffers;
  private final SystemConsumer[] consumerOf;
  private final long[] pollIntervalNanos;
  private final long[] lastPollNanos;
  private final boolean[] paused;
  private final boolean[] ended;
  private final boolean[] finished;
  private final long[] heads;
  private final long[] positions;
  private final ConsumerPolls[] polls;
  private final Chooser chooser;
  private final Listener listener;
  private final int maxMessages;
  private final long maxBytes;
  /** Partitions not finished whose buffers are empty. */
  private int emptyCount;
  /** Partitions not finished. */
  private int activeCount;
  /** Earliest time an empty partition is due for a poll while others still have data. */
  private long nextDueNanos = Long.MIN_VALUE;

  /**
   * Creates the multiplexer.
   *
   * @param consumerOf each partition's consumer (the same instance for partitions of one system)
   * @param pollIntervalNanos each partition's poll interval
   * @param maxMessages the most messages handed over per poll of one partition
   * @param maxBytes the byte cap of one partition's buffer
   */
  public ConsumerMultiplexer(
      SystemConsumer[] consumerOf, long[] pollIntervalNanos, int maxMessages, long maxBytes,
      Chooser chooser, Listener listener) {
    int n = consumerOf.length;
    this.consumerOf = consumerOf;
    this.pollIntervalNanos = pollIntervalNanos;
    this.maxMessages = maxMessages;
    this.maxBytes = maxBytes;
    this.chooser = chooser;
    this.listener = listener;
    buffers = new PartitionBuffer[n];
    lastPollNanos = new long[n];
    paused = new boolean[n];
    ended = new boolean[n];
    finished = new boolean[n];
    heads = new long[n];
    java.util.Arrays.fill(heads, -1);
    positions = new long[n];
    java.util.Arrays.fill(positions, -1);
    for (int p = 0; p < n; p++) {
      buffers[p] = new PartitionBuffer(Math.min(maxMessages, 1024));
    }
    Map<SystemConsumer, List<Integer>> byConsumer = new IdentityHashMap<>();
    for (int p = 0; p < n; p++) {
      byConsumer.computeIfAbsent(consumerOf[p], c -> new ArrayList<>()).add(p);
    }
    List<ConsumerPolls> groups = new ArrayList<>();
    byConsumer.forEach((consumer, partitions) ->
        groups.add(new ConsumerPolls(consumer, partitions.stream().mapToInt(i -> i).toArray())));
    polls = groups.toArray(new ConsumerPolls[0]);
    emptyCount = n;
    activeCount = n;
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
      for (int p : group.partitions) {
        if (finished[p] || paused[p] || ended[p] || !buffers[p].isEmpty()) {
          continue;
        }
        long due = lastPollNanos[p] + pollIntervalNanos[p];
        if (nothingBuffered || now - due >= 0) {
          group.scratch[count++] = p;
          lastPollNanos[p] = now;
          due = now + pollIntervalNanos[p];
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
    if (count <= 0 || finished[index]) {
      return;
    }
    PartitionBuffer buffer = buffers[index];
    if (buffer.isEmpty()) {
      chooser.available(index);
      emptyCount--;
    }
    buffer.add(messages, from, count);
    long bytes = 0;
    for (int i = from; i < from + count; i++) {
      bytes += messages[i].sizeInBytes();
    }
    buffer.bytesSinceEmpty += bytes;
    if (!paused[index] && buffer.bytesSinceEmpty > maxBytes) {
      paused[index] = true;
      consumerOf[index].pause(index);
    }
  }

  @Override
  public void endOfStream(int index) {
    if (ended[index]) {
      return;
    }
    ended[index] = true;
    if (buffers[index].isEmpty()) {
      finish(index);
    }
  }

  @Override
  public void head(int index, long upcomingOffset) {
    heads[index] = upcomingOffset;
  }

  @Override
  public void position(int index, long nextOffset) {
    if (nextOffset > positions[index]) {
      positions[index] = nextOffset;
      listener.positionReached(index, nextOffset);
    }
  }

  /** The consumer's last reported position in a partition (see BatchSink.position), or -1. */
  public long position(int index) {
    return positions[index];
  }

  /** The buffer of a partition, for delivery. */
  PartitionBuffer buffer(int index) {
    return buffers[index];
  }

  /** Called after delivering from a partition whose buffer is now empty. */
  void drained(int index) {
    PartitionBuffer buffer = buffers[index];
    buffer.bytesSinceEmpty = 0;
    chooser.unavailable(index);
    emptyCount++;
    // Due on its own interval, which may come before what the last refill computed from the
    // partitions that were empty then (a real-time partition next to bulk ones).
    nextDueNanos = Math.min(nextDueNanos, lastPollNanos[index] + pollIntervalNanos[index]);
    if (paused[index]) {
      paused[index] = false;
      consumerOf[index].resume(index);
    }
    if (ended[index]) {
      finish(index);
    }
  }

  /** Stops delivering a partition (its task shut down); buffered messages are dropped, uncommitted. */
  void retire(int index) {
    if (finished[index]) {
      return;
    }
    PartitionBuffer buffer = buffers[index];
    if (buffer.isEmpty()) {
      emptyCount--;
    }
    while (!buffer.isEmpty()) {
      buffer.poll();
    }
    chooser.unavailable(index);
    chooser.caughtUp(index);
    finished[index] = true;
    activeCount--;
  }

  private void finish(int index) {
    if (finished[index]) {
      return;
    }
    finished[index] = true;
    emptyCount--;
    activeCount--;
    chooser.caughtUp(index);
    listener.finished(index);
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

  /** Whether fetching for a partition is paused because its buffer is full. */
  public boolean isPaused(int index) {
    return paused[index];
  }

  /** Messages buffered for a partition. */
  public int buffered(int index) {
    return buffers[index].size();
  }

  /** The partition's upcoming offset as its system last reported it, or -1. */
  public long head(int index) {
    return heads[index];
  }

  /** The partitions of one consumer, with a scratch array for the indices of one poll. */
  private static final class ConsumerPolls {
    final SystemConsumer consumer;
    final int[] partitions;
    final int[] scratch;

    ConsumerPolls(SystemConsumer consumer, int[] partitions) {
      this.consumer = consumer;
      this.partitions = partitions;
      this.scratch = new int[partitions.length];
    }
  }
}
