package io.millrace.bench.kafka;

import io.millrace.api.config.JobConfig;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.TempDirs;
import io.millrace.bench.e2e.CountingTask;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One run of one Kafka benchmark, in this JVM: {@code raw} (a plain KafkaConsumer reading the
 * topic), {@code bare} and {@code bare-eos} (the client's own pass-through, {@link BareClient}),
 * {@code consume} (a Millrace job that counts), {@code passthrough} (a Millrace job
 * writing every record to a new output topic, at-least-once, one container) or {@code count} (a
 * count per key in a RocksDB store whose changelog is a new topic). Prints
 * {@code RESULT kafka-run mode=... msgs_per_sec=... whole_msgs_per_sec=... cpu_us_per_record=...}.
 *
 * <p>{@code msgs_per_sec} is measured from the first record processed to the last (start-up left
 * out); {@code whole_msgs_per_sec} from start to a clean stop (for the pass-through job, every
 * output acknowledged and the final checkpoint written). CPU is this JVM's process CPU time over
 * the whole interval.
 */
public final class KafkaRun {
  private KafkaRun() {}

  /** Runs once; see the class comment. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    String mode = args.get("mode", "passthrough");
    String bootstrap = args.get("bootstrap", "127.0.0.1:9092");
    String topic = args.get("topic", "bench-in");
    long records = args.getLong("records", 10_000_000);
    Map<String, String> extra = args.getSettings("set");
    double[] r = switch (mode) {
      case "raw" -> raw(bootstrap, topic, records);
      case "bare" -> BareClient.run(bootstrap, topic, records, false,
          args.getLong("commit-ms", 60_000));
      case "bare-eos" -> BareClient.run(bootstrap, topic, records, true,
          args.getLong("commit-ms", 100));
      case "bare-split" -> BareClient.run(bootstrap, topic, records, false, 0, true);
      case "consume", "passthrough", "count" -> job(mode, bootstrap, topic, records, extra);
      default -> throw new IllegalArgumentException("--mode raw|bare|bare-eos|bare-split|consume|passthrough|count, not "
          + mode);
    };
    System.out.printf(Locale.ROOT, "RESULT kafka-run mode=%s records=%d msgs_per_sec=%.0f "
        + "whole_msgs_per_sec=%.0f cpu_us_per_record=%.3f%n", mode, records, r[0], r[1], r[2]);
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** A plain consumer, with the fetch settings Millrace's consumer uses. */
  static double[] raw(String bootstrap, String topic, long records) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("max.poll.records", "10000");
    p.put("enable.auto.commit", "false");
    long cpu0 = cpuNanos();
    long start = System.nanoTime();
    long first = 0;
    long count = 0;
    long checksum = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer.partitionsFor(topic, Duration.ofSeconds(30)).forEach(info ->
          partitions.add(new TopicPartition(topic, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (count < records) {
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
        if (first == 0 && !batch.isEmpty()) {
          first = System.nanoTime();
        }
        for (var r : batch) {
          checksum += r.value().length; // touch each record, as a task would
          count++;
        }
      }
    }
    long end = System.nanoTime();
    if (checksum == 0) {
      throw new IllegalStateException("empty records");
    }
    return new double[] {records / ((end - first) / 1e9), records / ((end - start) / 1e9),
        (cpuNanos() - cpu0) / 1e3 / records};
  }

  static double[] job(String mode, String bootstrap, String topic, long records,
      Map<String, String> extra) throws Throwable {
    Path state = Files.createTempDirectory("millrace-kafka-bench");
    String run = UUID.randomUUID().toString().substring(0, 8);
    try {
      Map<String, String> c = new HashMap<>();
      c.put("job.name", "bench-kafka-" + mode + "-" + run);
      c.put("job.state.dir", state.toString());
      c.put("task.inputs", "in");
      c.put("systems.kafka.bootstrap.servers", bootstrap);
      c.put("streams.in.system", "kafka");
      c.put("streams.in.physical.name", topic);
      c.put("streams.in.key.serde", "bytes");
      c.put("streams.in.value.serde", "bytes");
      if (mode.equals("passthrough")) {
        c.put("task.class", PassThroughTask.class.getName());
        c.put("task.outputs", "out");
        c.put("streams.out.system", "kafka");
        c.put("streams.out.physical.name", "bench-out-" + run);
        c.put("streams.out.key.serde", "bytes");
        c.put("streams.out.value.serde", "bytes");
      } else if (mode.equals("count")) {
        // Count per key in RocksDB, changelog on Kafka: Kafka Streams' groupByKey().count().
        c.put("task.class", io.millrace.bench.store.CountTask.class.getName());
        c.put("stores.counts.factory", "rocksdb");
        c.put("stores.counts.key.serde", "bytes");
        c.put("stores.counts.value.serde", "long");
        c.put("stores.counts.changelog", "kafka.bench-count-changelog-" + run);
      } else {
        c.put("task.class", CountingTask.class.getName());
      }
      c.putAll(extra); // --set k=v,k2=v2: job keys to try, e.g. systems.kafka.producer.linger.ms
      LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(c)), Clock.SYSTEM);
      long cpu0 = cpuNanos();
      long start = System.nanoTime();
      runner.start();
      long[] span = sample(runner::processed, records);
      runner.requestStop();
      if (!runner.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the job did not stop within 120 s");
      }
      long end = System.nanoTime();
      if (runner.failure() != null) {
        throw runner.failure();
      }
      return new double[] {records / ((span[1] - span[0]) / 1e9),
          records / ((end - start) / 1e9), (cpuNanos() - cpu0) / 1e3 / records};
    } finally {
      TempDirs.deleteRecursively(state);
      BenchTopics.deleteRunTopics(bootstrap, run); // its output, changelog and checkpoint topics
    }
  }

  /** Polls a counter every millisecond: returns when it first moved and when it reached {@code n}. */
  static long[] sample(LongSupplier counter, long n) throws InterruptedException {
    long first = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (true) {
      long c = counter.getAsLong();
      long now = System.nanoTime();
      if (first == 0 && c > 0) {
        first = now;
      }
      if (c >= n) {
        return new long[] {first, now};
      }
      if (now > deadline) {
        throw new IllegalStateException("only " + c + " of " + n + " records in 10 minutes");
      }
      TimeUnit.MILLISECONDS.sleep(1);
    }
  }
}
