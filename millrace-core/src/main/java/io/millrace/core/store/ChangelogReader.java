package io.millrace.core.store;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one consumer of one changelog system for the whole process, shared by every restore of an
 * arriving task and every standby copy (Kafka Streams' restore consumer): each registers the
 * changelog partitions it reads with a sink of its own, and whichever of them polls hands every
 * batch fetched to the sink of its partition. One connection per system for the process, and
 * one place where a failed read is recovered; measured, a failover is no faster or slower for it
 * (docs/benchmarks.md, "One changelog reader").
 *
 * <p><b>Arriving tasks first.</b> A partition is registered as urgent (a restore: its task's
 * output stands still until it ends) or in the background (a copy of a task that runs elsewhere).
 * While any urgent partition is registered, the background ones are paused, so the fetches serve
 * the restore alone; they resume when the last urgent one goes.
 *
 * <p><b>A failed poll replaces the consumer.</b> A poll that throws (the consumer, or a sink)
 * stops the consumer; the next use starts a fresh one, with every registration still here resumed
 * after the last record its sink was handed (the failure is rethrown to the poller, which drops
 * its own registrations).
 *
 * <p>Threading: one thread at a time (the process's state updater's); a second thread using it
 * while the first does is refused with an error rather than left to corrupt the consumer.
 */
public final class ChangelogReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChangelogReader.class);
  private final String system;
  private final Supplier<SystemConsumer> consumers;
  /** Detects a second thread, as Kafka's consumer does: never waited on. */
  private final ReentrantLock inUse = new ReentrantLock();
  private SystemConsumer consumer;
  private boolean started;
  private Registration[] byIndex = new Registration[8];
  private final ArrayDeque<Integer> freeIndices = new ArrayDeque<>();
  private int nextIndex;
  private int urgent;
  private final BatchSink router = new Router();

  /** One partition read for one sink. */
  private static final class Registration {
    final StreamSpec stream;
    final int partition;
    final StartPosition start;
    final BatchSink sink;
    final boolean background;
    /** The offset after the last record handed to the sink (-1: none yet). */
    long next = -1;

    Registration(StreamSpec stream, int partition, StartPosition start, BatchSink sink,
        boolean background) {
      this.stream = stream;
      this.partition = partition;
      this.start = start;
      this.sink = sink;
      this.background = background;
    }

    /** Where a fresh consumer resumes: after what the sink was handed, else where it began. */
    StartPosition resume() {
      return next > 0 ? StartPosition.after(next - 1) : start;
    }
  }

  /**
   * @param system the changelogs' system, for messages
   * @param consumers makes a consumer of that system (once, and again only after a failure)
   */
  public ChangelogReader(String system, Supplier<SystemConsumer> consumers) {
    this.system = system;
    this.consumers = consumers;
  }

  /** The system read. */
  String system() {
    return system;
  }

  /**
   * Reads a changelog partition for {@code sink}, which hears of it by the returned index.
   *
   * @param background a standby copy's (paused while a restore reads), not a restore's
   * @return the partition's index, until {@link #unregister}
   */
  public int register(StreamSpec changelog, int partition, StartPosition start, BatchSink sink,
      boolean background) {
    enter();
    try {
      SystemConsumer c = consumer(); // (a fresh one registers what is here: not this one yet)
      int index = freeIndices.isEmpty() ? nextIndex++ : freeIndices.poll();
      if (index >= byIndex.length) {
        byIndex = Arrays.copyOf(byIndex, Math.max(index + 1, byIndex.length * 2));
      }
      byIndex[index] = new Registration(changelog, partition, start, sink, background);
      c.register(index, changelog, partition, start);
      if (!started) {
        c.start();
        started = true;
      }
      if (!background && urgent++ == 0) {
        pauseBackground(true);
      } else if (background && urgent > 0) {
        c.pause(index);
      }
      return index;
    } finally {
      inUse.unlock();
    }
  }

  /** Stops reading a partition: its sink hears nothing more of it, and its index may be reused. */
  public void unregister(int index) {
    enter();
    try {
      Registration r = index < byIndex.length ? byIndex[index] : null;
      if (r == null) {
        return;
      }
      byIndex[index] = null;
      freeIndices.add(index);
      if (consumer != null) {
        consumer.unregister(index);
      }
      if (!r.background && --urgent == 0 && consumer != null) {
        pauseBackground(false);
      }
    } finally {
      inUse.unlock();
    }
  }

  /**
   * Hands what was fetched to the sinks of its partitions: those given here and any other
   * registered (a consumer that fetches ahead hands over what it holds for all of them).
   *
   * @param indices the partitions the caller waits for (their heads and positions are reported)
   * @param timeoutMillis how long to wait when nothing was fetched
   * @return the records handed over
   */
  public int poll(int[] indices, int count, int maxMessages, long timeoutMillis)
      throws InterruptedException {
    enter();
    try {
      SystemConsumer c = consumer();
      try {
        return c.poll(indices, count, maxMessages, router, timeoutMillis);
      } catch (RuntimeException | Error e) {
        replace(e);
        throw e;
      }
    } finally {
      inUse.unlock();
    }
  }

  /** The consumer, a fresh one with every registration resumed if the last one failed. */
  private SystemConsumer consumer() {
    if (consumer == null) {
      consumer = consumers.get();
      started = false;
      boolean any = false;
      for (int i = 0; i < nextIndex; i++) {
        Registration r = byIndex[i];
        if (r != null) {
          consumer.register(i, r.stream, r.partition, r.resume());
          any = true;
        }
      }
      if (any) {
        consumer.start();
        started = true;
        if (urgent > 0) {
          pauseBackground(true);
        }
      }
    }
    return consumer;
  }

  /**
   * Stops the consumer after a failed poll; the next use starts a fresh one. Also when a sink
   * threw (a record its store cannot read): batches drained for other partitions after it never
   * reached their sinks, so only a fresh consumer, resumed from what each sink was handed, loses
   * none of them.
   */
  private void replace(Throwable failure) {
    LOG.warn("a poll of the changelogs on system '{}' failed ({}): a fresh consumer resumes the "
        + "partitions still read", system, failure.toString());
    SystemConsumer failed = consumer;
    consumer = null;
    try {
      failed.stop();
    } catch (RuntimeException e) {
      LOG.warn("the failed changelog consumer of system '{}' did not stop: {}", system,
          e.toString());
    }
  }

  private void pauseBackground(boolean pause) {
    for (int i = 0; i < nextIndex; i++) {
      Registration r = byIndex[i];
      if (r != null && r.background) {
        if (pause) {
          consumer.pause(i);
        } else {
          consumer.resume(i);
        }
      }
    }
  }

  private void enter() {
    if (!inUse.tryLock()) {
      throw new IllegalStateException("the changelog reader of system '" + system + "' is used "
          + "by two threads at once (" + Thread.currentThread().getName() + " and another): it "
          + "is the state updater's");
    }
  }

  /** Whether a partition is registered (tests). */
  boolean registered(int index) {
    return index < byIndex.length && byIndex[index] != null;
  }

  /**
   * Stops the consumer: nothing is read any more. After the state updater's thread ended; if it
   * still uses the reader (it did not end in time), the consumer is left to the process's end.
   */
  @Override
  public void close() {
    try {
      if (!inUse.tryLock(10, TimeUnit.SECONDS)) {
        LOG.warn("the changelog reader of system '{}' is still in use: its consumer is left to "
            + "the process's end", system);
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try {
      if (consumer != null) {
        try {
          consumer.stop();
        } catch (RuntimeException e) {
          LOG.warn("the changelog consumer of system '{}' failed to stop: {}", system,
              e.toString());
        }
        consumer = null;
      }
      Arrays.fill(byIndex, null);
      freeIndices.clear();
      nextIndex = 0;
      urgent = 0;
    } finally {
      inUse.unlock();
    }
  }

  /** Hands each partition's batches to its own sink, noting how far each was handed. */
  private final class Router implements BatchSink {
    @Override
    public void accept(int index, Envelope[] messages, int from, int count) {
      Registration r = index < byIndex.length ? byIndex[index] : null;
      if (r == null || count == 0) {
        return; // (a consumer drops an unregistered index's batches itself; nothing here if not)
      }
      r.sink.accept(index, messages, from, count);
      r.next = Math.max(r.next, messages[from + count - 1].offset() + 1);
    }

    @Override
    public void endOfStream(int index) {
      Registration r = index < byIndex.length ? byIndex[index] : null;
      if (r != null) {
        r.sink.endOfStream(index);
      }
    }

    @Override
    public void head(int index, long upcomingOffset) {
      Registration r = index < byIndex.length ? byIndex[index] : null;
      if (r != null) {
        r.sink.head(index, upcomingOffset);
      }
    }

    @Override
    public void position(int index, long nextOffset) {
      Registration r = index < byIndex.length ? byIndex[index] : null;
      if (r != null) {
        r.sink.position(index, nextOffset);
        r.next = Math.max(r.next, nextOffset);
      }
    }
  }
}
