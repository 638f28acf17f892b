package io.millrace.bench.async;

import io.millrace.api.AsyncStreamTask;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.EndOfStreamListener;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.TaskCallback;
import io.millrace.api.TaskContext;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The remote-I/O benchmark's task: each message makes one call whose latency is uniform in
 * 1-200 ms (mean 100.5 ms), completed by a timer. It also reads the loop thread's CPU time at
 * init and at end of stream, for the CPU per message.
 */
public final class RemoteCallTask implements AsyncStreamTask, InitableTask, EndOfStreamListener {
  static final double MIN_MS = 1;
  static final double MAX_MS = 200;
  /** The loop thread's CPU time at the first init and at the last end of stream of a run. */
  static final AtomicLong CPU_AT_START = new AtomicLong(-1);
  static final AtomicLong CPU_AT_END = new AtomicLong();
  static final AtomicLong COMPLETED = new AtomicLong();
  /** The latencies drawn, summed, for the bound of the latencies this run actually had. */
  static final LongAdder LATENCY_MICROS = new LongAdder();
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private SplittableRandom random;

  @Override
  public void init(TaskContext context) {
    random = new SplittableRandom(context.partitionNumber());
    CPU_AT_START.compareAndSet(-1, THREADS.getCurrentThreadCpuTime());
  }

  @Override
  public void processAsync(
      Envelope envelope, Collector collector, TaskCoordinator coordinator, TaskCallback callback) {
    long micros = (long) ((MIN_MS + random.nextDouble() * (MAX_MS - MIN_MS)) * 1000);
    LATENCY_MICROS.add(micros);
    SimulatedRemote.after(micros, () -> {
      COMPLETED.incrementAndGet();
      callback.complete();
    });
  }

  @Override
  public void onEndOfStream(Collector collector, TaskCoordinator coordinator) {
    // Every task runs on the same loop thread: the last end of stream closes the interval.
    CPU_AT_END.set(THREADS.getCurrentThreadCpuTime());
  }
}
