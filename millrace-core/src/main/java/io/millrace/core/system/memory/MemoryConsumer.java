package io.millrace.core.system.memory;

import io.millrace.api.Envelope;
import io.millrace.api.config.JobConfig;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.batching.handoff.BatchedHandoff;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads in-memory streams for one container. Stored streams are read on the loop thread by
 * handing out slices of their chunks (no copy); live generated streams come from a
 * {@link LiveFeed} thread through a {@link BatchedHandoff}.
 */
final class MemoryConsumer implements SystemConsumer {
  static final String BATCH_SIZE = "handoff.batch.size";
  static final String LINGER_MS = "handoff.linger.ms";
  static final String QUEUE_BATCHES = "handoff.queue.batches";

  private final SystemContext context;
  private final JobConfig systemConfig;
  /** Stored partitions by loop index; null for live or foreign indices. */
  private MemoryPartition[] stored = new MemoryPartition[0];
  private long[] position = new long[0];
  private String[] renamed = new String[0];
  private boolean[] ended = new boolean[0];
  private final List<LiveFeed.Target> liveTargets = new ArrayList<>();
  private BatchedHandoff handoff;
  private AtomicIntegerArray paused;
  private LiveFeed feed;
  private Thread feedThread;
  private Envelope[] scratch = new Envelope[0];

  MemoryConsumer(SystemContext context) {
    this.context = context;
    this.systemConfig = JobConfig.of(context.systemConfig());
  }

  @Override
  public void register(int index, StreamSpec stream, int partition, StartPosition start) {
    grow(index + 1);
    GeneratorSpec generator = GeneratorSpec.of(stream.id(), context.streamConfig(stream.id()));
    if (generator != null && generator.live()) {
      if (feed != null) {
        throw new IllegalStateException("live generated stream " + stream.id()
            + " cannot be added to a running container (its feed thread has started)");
      }
      long from = switch (start.kind()) {
        case AFTER -> start.offset() + 1;
        case OLDEST -> 0;
        case UPCOMING -> generator.messagesOf(partition);
      };
      liveTargets.add(new LiveFeed.Target(index, stream.id(), partition, generator, from));
      return;
    }
    MemoryStream memory = MemoryStreams.get(stream.physicalName());
    if (memory == null) {
      throw new IllegalStateException("memory stream " + stream.physicalName() + " does not exist");
    }
    MemoryPartition p = memory.partition(partition);
    stored[index] = p;
    ended[index] = false;
    position[index] = switch (start.kind()) {
      case AFTER -> start.offset() + 1;
      case OLDEST -> 0;
      case UPCOMING -> p.size();
    };
    // Envelopes carry the name they were stored under; a job that calls the stream otherwise
    // gets copies with its own id (an allocation per message, so benchmarks avoid it).
    renamed[index] = stream.id().equals(memory.envelopeStream()) ? null : stream.id();
  }

  @Override
  public void unregister(int index) {
    for (LiveFeed.Target target : liveTargets) {
      if (target.index() == index) {
        throw new UnsupportedOperationException("live generated stream " + target.streamId()
            + " cannot leave a running container");
      }
    }
    if (index < stored.length) {
      stored[index] = null; // stored streams are read on the loop thread: nothing is in transit
      renamed[index] = null;
      ended[index] = false;
    }
  }

  private void grow(int n) {
    if (stored.length < n) {
      stored = java.util.Arrays.copyOf(stored, n);
      position = java.util.Arrays.copyOf(position, n);
      renamed = java.util.Arrays.copyOf(renamed, n);
      ended = java.util.Arrays.copyOf(ended, n);
    }
  }

  @Override
  public void start() {
    if (liveTargets.isEmpty()) {
      return;
    }
    int batch = systemConfig.getInt(BATCH_SIZE, 1024, 1);
    long lingerNanos = TimeUnit.MILLISECONDS.toNanos(systemConfig.getLong(LINGER_MS, 1, 0));
    int queue = systemConfig.getInt(QUEUE_BATCHES, 64, 2);
    handoff = new BatchedHandoff(stored.length, batch, queue, lingerNanos, System::nanoTime);
    paused = new AtomicIntegerArray(stored.length);
    feed = new LiveFeed(liveTargets, handoff, paused);
    feedThread = new Thread(feed, "millrace-memory-feed-" + context.containerId());
    feedThread.setDaemon(true);
    feedThread.start();
  }

  @Override
  public int poll(int[] indices, int count, int maxMessages, BatchSink sink, long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (true) {
      int handed = handoff == null ? 0 : handoff.drain(sink);
      for (int i = 0; i < count; i++) {
        int index = indices[i];
        MemoryPartition p = stored[index];
        if (p == null || ended[index]) {
          continue;
        }
        int read = renamed[index] == null
            ? p.read(position[index], maxMessages, sink, index)
            : readRenamed(p, index, maxMessages, sink);
        position[index] += read;
        handed += read;
        int size = p.size();
        sink.head(index, size);
        if (p.sealed() && position[index] >= p.size()) {
          ended[index] = true;
          sink.endOfStream(index);
        }
      }
      if (handed > 0 || timeoutMillis <= 0 || System.nanoTime() >= deadline) {
        return handed;
      }
      LockSupport.parkNanos(20_000); // memory streams have no wake-up signal: poll finely
    }
  }

  private int readRenamed(MemoryPartition p, int index, int max, BatchSink sink) {
    int n = (int) Math.min(max, p.size() - position[index]);
    if (scratch.length < n) {
      scratch = new Envelope[n];
    }
    for (int i = 0; i < n; i++) {
      Envelope e = p.get(position[index] + i);
      scratch[i] = new Envelope(renamed[index], e.partition(), e.offset(), e.key(), e.value(),
          e.timestamp(), e.sizeInBytes(), e.headers());
    }
    sink.accept(index, scratch, 0, n);
    return n;
  }

  @Override
  public void pause(int index) {
    if (paused != null) {
      paused.set(index, 1);
    }
  }

  @Override
  public void resume(int index) {
    if (paused != null) {
      paused.set(index, 0);
    }
  }

  @Override
  public void stop() {
    if (feed != null) {
      feed.stop();
      try {
        feedThread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
