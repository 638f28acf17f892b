package io.millrace.kafka.consume;

import io.millrace.api.system.BatchSink;
import io.millrace.api.system.StartPosition;
import io.millrace.api.system.StreamSpec;
import io.millrace.api.system.SystemConsumer;
import io.millrace.api.system.SystemContext;
import io.millrace.api.system.handoff.BatchedHandoff;
import io.millrace.kafka.KafkaSettings;
import java.util.ArrayList;
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
 * partition. A partition whose buffer in the loop is full is paused on the consumer ({@link
 * #pause}), so memory stays bounded whatever the lag: at most the loop's buffer cap plus what was
 * already fetched for it (one fetch, {@code max.partition.fetch.bytes}) plus the hand-off queue.
 */
public final class KafkaSystemConsumer implements SystemConsumer {
  private final SystemContext context;
  private final KafkaSettings settings;
  private final List<FetchThread.Partition> partitions = new ArrayList<>();
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
    String offsetDefault = context.streamConfig(stream.id()).getOrDefault("offset.default",
        "oldest");
    partitions.add(new FetchThread.Partition(index, stream,
        new TopicPartition(stream.physicalName(), partition), start,
        offsetDefault.equals("upcoming")));
  }

  @Override
  public void start() {
    int maxIndex = 0;
    for (FetchThread.Partition p : partitions) {
      maxIndex = Math.max(maxIndex, p.index() + 1);
    }
    BatchedHandoff handoff = new BatchedHandoff(maxIndex, settings.handoffBatchSize(),
        settings.handoffQueueBatches(), TimeUnit.MILLISECONDS.toNanos(1), System::nanoTime);
    String clientId = "millrace-" + context.jobName() + "-" + context.containerId() + "-"
        + settings.system();
    fetch = new FetchThread(settings, consumerProperties(clientId), partitions, maxIndex,
        handoff);
    thread = new Thread(fetch, "millrace-kafka-fetch-" + context.containerId());
    thread.setDaemon(true);
    thread.start();
    fetch.awaitStarted();
    positionScratch = new long[maxIndex];
  }

  /**
   * The consumer's properties. Unless the job sets {@code consumer.max.partition.fetch.bytes}, a
   * partition's fetch is sized like its share of the loop's buffers (task.buffer.max.total.bytes
   * over the partitions, between 64 KB and Kafka's 1 MB): the consumer keeps one fetched chunk
   * per partition it has not handed over, so with 1,000 partitions 1 MB chunks would mean 1 GB.
   */
  private Properties consumerProperties(String clientId) {
    Properties props = settings.consumerProperties(clientId);
    if (!context.systemConfig().containsKey("consumer.max.partition.fetch.bytes")) {
      long share = context.containerBufferBytes() / Math.max(1, partitions.size());
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
      positionScratch[indices[i]] = fetch.position(indices[i]);
    }
    int handed = fetch.handoff().drain(sink);
    if (handed == 0 && timeoutMillis > 0) {
      fetch.awaitBatches(TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
      handed = fetch.handoff().drain(sink);
    }
    for (int i = 0; i < count; i++) {
      int index = indices[i];
      long head = fetch.head(index);
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
    fetch.pause(index, true);
  }

  @Override
  public void resume(int index) {
    fetch.pause(index, false);
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
