package io.millrace.kafka.consume;

import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.batching.handoff.BatchedHandoff;
import io.millrace.kafka.settings.KafkaSettings;
import io.millrace.kafka.produce.JobTransactions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads Kafka partitions for one container: one {@code KafkaConsumer} on its own fetch thread
 * ({@link FetchThread}), which deserializes records into envelopes and hands them to the loop in
 * batches through a {@link BatchedHandoff}. The loop's {@link #poll} only drains what is there (or
 * waits briefly for it), so a slow broker never blocks the loop's timers.
 *
 * <p>Partitions are assigned, not subscribed: Millrace decides which container reads which
 * partition, and when a job's tasks move, partitions are {@link #register registered} and
 * {@link #unregister unregistered} while the fetch thread runs. A partition whose buffer in the
 * loop is full is paused on the consumer ({@link #pause}), so memory stays bounded whatever the
 * lag: at most the loop's buffer cap plus what was already fetched for it (one fetch,
 * {@code max.partition.fetch.bytes}) plus the hand-off queue.
 */
public final class KafkaSystemConsumer implements SystemConsumer {
  private final SystemContext context;
  private final KafkaSettings settings;
  /** Loop thread: each index's registration now, or null. */
  private FetchThread.Partition[] byIndex = new FetchThread.Partition[0];
  /** Loop thread: the epoch of each index's latest registration (or unregistration). */
  private int[] epochs = new int[0];
  private final List<FetchThread.Partition> initial = new ArrayList<>();
  private BatchedHandoff handoff;
  private FetchThread fetch;
  private Thread thread;
  private long[] positionScratch = new long[0];

  /** A consumer for one container. */
  public KafkaSystemConsumer(SystemContext context, KafkaSettings settings) {
    this.context = context;
    this.settings = settings;
  }

  @Override
  public void register(int index, StreamSpec stream, int partition, StartPosition start) {
    ensure(index);
    if (byIndex[index] != null) {
      throw new IllegalStateException("index " + index + " is registered already ("
          + byIndex[index].topicPartition + ")");
    }
    String offsetDefault = context.streamConfig(stream.id()).getOrDefault("offset.default",
        "oldest");
    if (fetch != null) {
      epochs[index]++; // a new registration of the index: its old batches are not ours
    }
    FetchThread.Partition p = new FetchThread.Partition(index, epochs[index], stream,
        new TopicPartition(stream.physicalName(), partition), start,
        offsetDefault.equals("upcoming"));
    byIndex[index] = p;
    if (fetch == null) {
      initial.add(p);
    } else {
      handoff.consumerEpoch(index, p.epoch);
      fetch.add(p);
    }
  }

  @Override
  public void unregister(int index) {
    FetchThread.Partition p = index < byIndex.length ? byIndex[index] : null;
    if (p == null) {
      return;
    }
    byIndex[index] = null;
    epochs[index]++;
    if (fetch == null) {
      initial.remove(p);
    } else {
      handoff.consumerEpoch(index, epochs[index]); // what was fetched for it is dropped
      fetch.remove(p);
    }
  }

  private void ensure(int index) {
    if (index >= byIndex.length) {
      int size = Math.max(index + 1, byIndex.length * 2);
      byIndex = Arrays.copyOf(byIndex, size);
      epochs = Arrays.copyOf(epochs, size);
      positionScratch = Arrays.copyOf(positionScratch, size);
    }
  }

  @Override
  public void start() {
    handoff = new BatchedHandoff(Math.max(1, byIndex.length), settings.handoffBatchSize(),
        settings.handoffQueueBatches(), TimeUnit.MILLISECONDS.toNanos(1), System::nanoTime);
    for (FetchThread.Partition p : initial) {
      handoff.consumerEpoch(p.index, p.epoch);
    }
    String clientId = "millrace-" + context.jobName() + "-" + context.containerId() + "-"
        + settings.system();
    fetch = new FetchThread(settings, consumerProperties(clientId), List.copyOf(initial),
        handoff);
    initial.clear();
    thread = new Thread(fetch, "millrace-kafka-fetch-" + context.containerId());
    thread.setDaemon(true);
    thread.start();
    fetch.awaitStarted();
  }

  /**
   * The consumer's properties. Unless the job sets {@code consumer.max.partition.fetch.bytes}, a
   * partition's fetch is sized like its share of the loop's buffers (task.buffer.max.total.bytes
   * over the partitions it starts with, between 64 KB and Kafka's 1 MB): the consumer keeps one
   * fetched chunk per partition it has not handed over, so with 1,000 partitions 1 MB chunks
   * would mean 1 GB.
   */
  private Properties consumerProperties(String clientId) {
    Properties props = settings.consumerProperties(clientId);
    if (JobTransactions.readCommitted(context.jobConfig(), context.systemName())
        && !context.systemConfig().containsKey("consumer.isolation.level")) {
      // The job's writes to this cluster are transactional (job.coordinator=kafka), or the job is
      // exactly-once: read only what committed, so a fenced member's writes, a dead member's
      // open ones and an upstream job's aborted ones are never read.
      props.put("isolation.level", "read_committed");
    }
    if (!context.systemConfig().containsKey("consumer.max.partition.fetch.bytes")) {
      long share = context.containerBufferBytes() / Math.max(1, initial.size());
      props.put("max.partition.fetch.bytes",
          Long.toString(Math.max(64 << 10, Math.min(1 << 20, share))));
    }
    return props;
  }

  @Override
  public int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis) {
    fetch.rethrowFailure();
    // Positions are read before the drain: the fetch thread publishes a position only after the
    // batches it covers, so every message before a position read here is drained below.
    for (int i = 0; i < count; i++) {
      FetchThread.Partition p = byIndex[indices[i]];
      positionScratch[indices[i]] = p == null ? -1 : p.position;
    }
    int handed = handoff.drain(sink);
    if (handed == 0 && timeoutMillis > 0) {
      fetch.awaitBatches(TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
      handed = handoff.drain(sink);
    }
    for (int i = 0; i < count; i++) {
      int index = indices[i];
      FetchThread.Partition p = byIndex[index];
      if (p == null) {
        continue;
      }
      long head = p.head;
      if (head >= 0) {
        sink.head(index, head);
      }
      if (positionScratch[index] >= 0) {
        sink.position(index, positionScratch[index]);
      }
    }
    return handed;
  }

  @Override
  public void pause(int index) {
    FetchThread.Partition p = byIndex[index];
    if (p != null) {
      fetch.pause(p, true);
    }
  }

  @Override
  public void resume(int index) {
    FetchThread.Partition p = byIndex[index];
    if (p != null) {
      fetch.pause(p, false);
    }
  }

  @Override
  public void stop() {
    if (fetch == null) {
      return;
    }
    fetch.stop();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
