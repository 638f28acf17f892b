package io.millrace.bench.peers.nexmark;

import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.QueryRun;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One Nexmark query on Flink 2.2, in this JVM (a child of {@code bench nexmark}): a MiniCluster
 * (a local environment) with parallelism = cores, the RocksDB state backend, checkpoints every
 * 10 s (aligned; exactly-once or at-least-once as the run's guarantee, the Kafka sink's delivery
 * guarantee the same), bounded Kafka sources from the topics' start to their end.
 */
public final class FlinkNexmark {
  private FlinkNexmark() {}

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv, 0).only("query", "bootstrap", "person", "auction", "bid", "out",
        "records", "quiet-ms", "guarantee", "check");
    NexmarkQuery query = NexmarkQuery.named(args.get("query", "q0"));
    String bootstrap = args.get("bootstrap", "127.0.0.1:9092");
    boolean exactlyOnce = args.get("guarantee", "at-least-once").equals("exactly-once");
    Map<String, String> topics = new HashMap<>();
    for (String input : query.inputs()) {
      topics.put(input, args.get(input, null));
    }
    String out = args.get("out", null);
    String run = UUID.randomUUID().toString().substring(0, 8);
    Path checkpoints = Files.createTempDirectory("flink-nexmark");
    try {
      Configuration conf = new Configuration();
      conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
      StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(
          Runtime.getRuntime().availableProcessors(), conf);
      env.enableCheckpointing(10_000, exactlyOnce ? CheckpointingMode.EXACTLY_ONCE
          : CheckpointingMode.AT_LEAST_ONCE);
      KafkaSink<org.apache.flink.api.java.tuple.Tuple2<byte[], byte[]>> sink = KafkaSink
          .<org.apache.flink.api.java.tuple.Tuple2<byte[], byte[]>>builder()
          .setBootstrapServers(bootstrap)
          .setRecordSerializer((KafkaRecordSerializationSchema<
              org.apache.flink.api.java.tuple.Tuple2<byte[], byte[]>>) (r, context, time) ->
              new ProducerRecord<>(out, r.f0, r.f1))
          .setDeliveryGuarantee(exactlyOnce ? DeliveryGuarantee.EXACTLY_ONCE
              : DeliveryGuarantee.AT_LEAST_ONCE)
          .setTransactionalIdPrefix("nexmark-" + run)
          // The broker's transaction.max.timeout.ms is 15 minutes; Flink's default asks for 1 h.
          .setProperty("transaction.timeout.ms", "600000")
          .build();
      new FlinkQueries(env, bootstrap, topics, "nexmark-" + query.label() + "-" + run)
          .build(query).sinkTo(sink).name("out");
      long cpu0 = QueryRun.cpuNanos();
      long start = System.nanoTime();
      JobClient job = env.executeAsync("nexmark-" + query.label());
      QueryRun.measure("flink", query, args.getLong("records", 0), bootstrap, out, run,
          args.getLong("quiet-ms", 3000), start, cpu0, () -> failure(job),
          () -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS));
    } finally {
      TempDirs.deleteRecursively(checkpoints);
    }
    System.exit(0); // the MiniCluster's threads would keep the JVM up
  }

  private static Throwable failure(JobClient job) {
    try {
      JobStatus status = job.getJobStatus().get(10, TimeUnit.SECONDS);
      if (status == JobStatus.FAILED) {
        try {
          job.getJobExecutionResult().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
          return e;
        }
        return new IllegalStateException("the Flink job failed");
      }
      return null;
    } catch (Exception e) {
      return null; // the job has finished and left the MiniCluster: no failure to report
    }
  }
}
