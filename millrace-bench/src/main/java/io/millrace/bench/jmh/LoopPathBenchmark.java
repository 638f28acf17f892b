package io.millrace.bench.jmh;

import io.millrace.api.system.SystemConsumer;
import io.millrace.bench.e2e.CountingTask;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.checkpoint.CheckpointWriter;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.ErrorPolicy;
import io.millrace.core.loop.LoopSettings;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.loop.TaskInstance;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.output.TaskCollector;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The per-message path of a container: multiplexer refill, chooser, delivery to a counting task,
 * offsets and the processed counter. One invocation is one loop cycle of 4,096 messages (8
 * partitions x 512), so scores are messages, and {@code gc.alloc.rate.norm} under {@code -prof gc}
 * is bytes allocated per message by the runtime (the consumer allocates nothing).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LoopPathBenchmark {
  static final int PARTITIONS = 8;
  static final int PER_POLL = 512;
  static final int MESSAGES_PER_CYCLE = PARTITIONS * PER_POLL;

  /** Messages a partition gets per chooser turn (task.consumer.batch.size). */
  @Param({"1", "100"})
  public int batchSize;

  private RunLoop loop;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    SystemConsumer consumer = new CyclingConsumer(PARTITIONS, PER_POLL);
    SystemConsumer[] consumerOf = new SystemConsumer[PARTITIONS];
    Arrays.fill(consumerOf, consumer);
    int[] taskIndex = new int[PARTITIONS];
    TaskInstance[] tasks = new TaskInstance[PARTITIONS];
    for (int p = 0; p < PARTITIONS; p++) {
      taskIndex[p] = p;
      tasks[p] = new TaskInstance("Partition " + p, new CountingTask(),
          new TaskCollector(Map.of(), "Partition " + p), null, 1);
    }
    long[] none = new long[PARTITIONS];
    Arrays.fill(none, Long.MIN_VALUE);
    long[] interval = new long[PARTITIONS];
    Arrays.fill(interval, TimeUnit.MILLISECONDS.toNanos(50));
    CheckpointWriter noCheckpoints = offsets -> { };
    loop = new RunLoop(0, new LoopSettings(0, 0, batchSize, PER_POLL, Long.MAX_VALUE, Long.MAX_VALUE, 0,
        AsyncSettings.DEFAULT),
        consumerOf, taskIndex, tasks, new int[PARTITIONS], new boolean[PARTITIONS],
        new long[PARTITIONS], none, interval, List.of(consumer), List.of(), noCheckpoints,
        ErrorPolicy.FAIL, null, new DefaultMetricsRegistry(false), Clock.SYSTEM);
    loop.start();
    int delivered = loop.cycle();
    if (delivered != MESSAGES_PER_CYCLE) {
      throw new IllegalStateException("a cycle delivered " + delivered + ", expected "
          + MESSAGES_PER_CYCLE);
    }
  }

  @Benchmark
  @OperationsPerInvocation(MESSAGES_PER_CYCLE)
  public int cycle() throws Exception {
    return loop.cycle();
  }
}
