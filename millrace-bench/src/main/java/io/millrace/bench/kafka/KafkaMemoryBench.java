package io.millrace.bench.kafka;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.config.JobConfig;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.BenchJobs;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.kafka.dev.DevBroker;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Memory with many partitions behind a slow task: a topic of 1,000 partitions holding a backlog
 * (default 2,000 records of 100 bytes each: 2M records, 200 MB), a job whose task is far slower
 * than fetching, and the heap after a full GC sampled while it runs, against the bound
 * docs/configuration.md states. Prints {@code RESULT kafka-memory max_heap_after_gc_mb=...}.
 */
public final class KafkaMemoryBench {
  private KafkaMemoryBench() {}

  /** Sleeps 1 ms every 100 messages: about 100,000 messages/s at most, far below fetching. */
  public static final class SlowTask implements StreamTask {
    private long seen;

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      if (++seen % 100 == 0) {
        Thread.sleep(1);
      }
    }
  }

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    int partitions = (int) args.getLong("partitions", 1000);
    long perPartition = args.getLong("records-per-partition", 2000);
    int seconds = (int) args.getLong("seconds", 20);
    String bootstrap = args.get("bootstrap", null);
    DevBroker broker = null;
    if (bootstrap == null) {
      broker = io.millrace.bench.support.BenchJobs.startBroker();
      bootstrap = broker.bootstrapServers();
    }
    Path state = Files.createTempDirectory("millrace-kafka-memory");
    try {
      String topic = "bench-memory-" + partitions + "x" + perPartition;
      BenchInput.ensure(bootstrap, topic, partitions, partitions * perPartition, 100);
      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      long baseline = heapAfterGc(memory);
      Map<String, String> c = new HashMap<>();
      c.put("job.name", "bench-kafka-memory-" + System.nanoTime());
      c.put("job.state.dir", state.toString());
      c.put("task.class", SlowTask.class.getName());
      c.put("task.inputs", "in");
      c.put("systems.kafka.bootstrap.servers", bootstrap);
      c.put("streams.in.system", "kafka");
      c.put("streams.in.physical.name", topic);
      c.put("streams.in.key.serde", "bytes");
      c.put("streams.in.value.serde", "bytes");
      LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(c)), Clock.SYSTEM);
      runner.start();
      long most = 0;
      for (int s = 0; s < seconds; s += 2) {
        TimeUnit.SECONDS.sleep(2);
        long used = heapAfterGc(memory) - baseline;
        most = Math.max(most, used);
        System.out.printf(Locale.ROOT, "%2d s: %,d processed, heap after GC %.1f MB above the "
            + "baseline%n", s + 2, runner.processed(), used / 1e6);
      }
      runner.requestStop();
      runner.await(60, TimeUnit.SECONDS);
      if (runner.failure() != null) {
        throw runner.failure();
      }
      System.out.printf(Locale.ROOT, "RESULT kafka-memory partitions=%d backlog_mb=%.0f "
              + "max_heap_after_gc_mb=%.1f baseline_mb=%.1f processed=%d seconds=%d%n", partitions,
          partitions * perPartition * 108 / 1e6, most / 1e6, baseline / 1e6, runner.processed(),
          seconds);
    } finally {
      TempDirs.deleteRecursively(state);
      if (broker != null) {
        BenchJobs.stopBroker(broker);
      }
    }
  }

  private static long heapAfterGc(MemoryMXBean memory) {
    System.gc();
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }
}
