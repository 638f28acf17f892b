package io.millrace.bench.peers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.samza.application.TaskApplication;
import org.apache.samza.serializers.NoOpSerde;
import org.apache.samza.task.StreamTaskFactory;
import org.apache.samza.test.framework.TestRunner;
import org.apache.samza.test.framework.system.descriptors.InMemoryInputDescriptor;
import org.apache.samza.test.framework.system.descriptors.InMemorySystemDescriptor;

/**
 * Millrace's store-count benchmark on Apache Samza 1.8: each message reads its key's count in a
 * RocksDB store (samza-kv-rocksdb, Samza's defaults: object cache 1,000, write batch 500) and
 * writes count + 1; N preloaded messages in P partitions, keys from a cardinality of K, one
 * container thread, timers off, run by samza-test's {@link TestRunner}.
 *
 * <p>Usage: {@code SamzaStoreCountBench [--messages N] [--partitions P] [--keys K]}. The timed
 * interval runs from the first {@code process()} call to the N-th.
 */
public final class SamzaStoreCountBench {
  private static final String SYSTEM = "bench";
  private static final String STREAM = "input";

  private SamzaStoreCountBench() {
  }

  public static void main(String[] args) throws Exception {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    BenchArgs options = new BenchArgs(args, Set.of("messages", "partitions", "keys"));
    long messages = options.positiveLong("messages", 2_000_000L);
    int partitions = Math.toIntExact(options.positiveLong("partitions", 8));
    long keys = options.positiveLong("keys", messages);
    Path stores = Files.createTempDirectory("samza-store-bench");

    Progress progress = new Progress(messages);
    InMemoryInputDescriptor<byte[]> input =
        new InMemorySystemDescriptor(SYSTEM).getInputDescriptor(STREAM, new NoOpSerde<>());
    TaskApplication app = descriptor -> {
      descriptor.withInputStream(input);
      descriptor.withTaskFactory((StreamTaskFactory) () -> new StoreCountTask(progress));
    };
    Map<Integer, InputPartition> data = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      data.put(p, InputPartition.of(SYSTEM, STREAM, messages, partitions, p, keys));
    }
    TestRunner runner = TestRunner.of(app)
        .addConfig("metrics.timer.enabled", "false")
        .addConfig("job.container.thread.pool.size", "0")
        .addConfig("job.jmx.enabled", "false")
        .addConfig("stores.counts.factory", "org.apache.samza.storage.kv.RocksDbKeyValueStorageEngineFactory")
        .addConfig("stores.counts.key.serde", "string")
        .addConfig("stores.counts.msg.serde", "long")
        .addConfig("serializers.registry.string.class", "org.apache.samza.serializers.StringSerdeFactory")
        .addConfig("serializers.registry.long.class", "org.apache.samza.serializers.LongSerdeFactory")
        .addConfig("job.non-logged.store.base.dir", stores.toString())
        .addConfig("job.logged.store.base.dir", stores.toString())
        .addInputStream(input, data);
    System.gc();
    runner.run(Duration.ofHours(1));
    if (!progress.reachedTarget()) {
      throw new IllegalStateException("processed " + progress.processed() + " of " + messages + " messages");
    }
    double seconds = (progress.targetNanos() - progress.firstNanos()) / 1e9;
    System.out.printf(Locale.ROOT,
        "RESULT samza-store-count msgs_per_sec=%.1f messages=%d partitions=%d keys=%d seconds=%.3f%n",
        messages / seconds, messages, partitions, keys, seconds);
  }
}
