package io.millrace.bench.jmh;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointStore;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.spi.system.StartPosition;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.bench.e2e.CountingTask;
import io.millrace.core.async.AsyncSettings;
import io.millrace.core.commit.Committer;
import io.millrace.core.coordinate.LocalCoordinator;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.ContainerParts;
import io.millrace.core.loop.ErrorPolicy;
import io.millrace.core.loop.LoopSettings;
import io.millrace.core.loop.PartitionSpec;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.loop.TaskInstance;
import io.millrace.core.loop.TaskSource;
import io.millrace.core.loop.TaskSpec;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.millrace.core.output.TaskCollector;
import io.millrace.core.serde.StringSerde;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    List<TaskSpec> tasks = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      TaskInstance task = new TaskInstance("Partition " + p, p, new CountingTask(),
          new TaskCollector(Map.of(), "Partition " + p), null, 1, List.of());
      StreamPartition id = new StreamPartition("cycling", "in", p);
      tasks.add(new TaskSpec(task, List.of(new PartitionSpec(id,
          new StreamSpec("in", "in", new StringSerde(), new StringSerde()), consumer,
          StartPosition.oldest(), CheckpointStore.NONE, 0, TimeUnit.MILLISECONDS.toNanos(50),
          false, -1, 0, -1))));
    }
    DefaultMetricsRegistry metrics = new DefaultMetricsRegistry(false);
    CheckpointStore noCheckpoints = new CheckpointStore() {
      @Override
      public Map<StreamPartition, Long> read() {
        return Map.of();
      }

      @Override
      public CheckpointWriter writer(int containerId, List<StreamPartition> partitions) {
        return offsets -> { };
      }
    };
    Committer committer = new Committer(0, List.of(), null, noCheckpoints,
        metrics.counter("container-0", "commits"));
    TaskSource source = new TaskSource() {
      @Override
      public List<TaskSpec> take(Set<Integer> numbers) {
        return numbers.stream().map(tasks::get).toList();
      }

      @Override
      public void release(int taskNumber, boolean committed) {}

      @Override
      public Map<Integer, Map<String, Long>> localState() {
        return Map.of();
      }
    };
    loop = new RunLoop(new ContainerParts(0, new LoopSettings(0, 0, batchSize, PER_POLL,
        Long.MAX_VALUE, Long.MAX_VALUE, 0, AsyncSettings.DEFAULT), Clock.SYSTEM, metrics,
        List.of(consumer), List.of(), committer, ErrorPolicy.FAIL, null, null, false,
        new LocalCoordinator(PARTITIONS, 1), source, 0, null));
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
