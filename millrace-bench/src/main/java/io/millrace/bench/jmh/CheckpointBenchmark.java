package io.millrace.bench.jmh;

import io.millrace.api.StreamPartition;
import io.millrace.spi.checkpoint.CheckpointWriter;
import io.millrace.core.checkpoint.FileCheckpointStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Writing the checkpoint of a container with 100, 1,000 and 10,000 partitions (the Kafka lesson:
 * garbage per checkpoint must not grow with the partition count beyond the bytes written). Each
 * write includes the fsync of the file and of its directory.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CheckpointBenchmark {
  /** Partitions in the checkpoint. */
  @Param({"100", "1000", "10000"})
  public int partitions;

  private Path dir;
  private CheckpointWriter writer;
  private long[] offsets;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("millrace-checkpoint-bench");
    List<StreamPartition> list = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      list.add(new StreamPartition("kafka", "topic-" + (i / 100), i % 100));
    }
    writer = new FileCheckpointStore(dir).writer(0, list);
    offsets = new long[partitions];
    for (int i = 0; i < partitions; i++) {
      offsets[i] = 1_000_000_000L + i * 7919L;
    }
  }

  @Benchmark
  public void write() {
    offsets[0]++;
    writer.write(offsets);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
