package io.millrace.bench.peers;

import io.millrace.bench.scaleout.Emission;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * One process of {@code bench scale-out}'s jobs on Kafka Streams 4.3, the same jobs Millrace runs
 * ({@code ScaleOutCountTask}, {@code ScaleOutPassTask}): for each record, optionally count it per
 * key in a RocksDB store with a changelog, and write an {@link Emission} to the output on the
 * record's own partition. Kafka Streams' defaults but for the session timeout (the benchmark's, the
 * same as Millrace's), one stream thread, and the standby replicas and processing guarantee asked
 * for; a SIGTERM runs {@code close()} as an application's shutdown hook would, with its defaults.
 *
 * <p>Prints {@code EVENT <epoch ms> <what> ...} lines for the benchmark's phases: state changes
 * (REBALANCING is when this process learnt of a rebalance) and each store partition's restore
 * start and end.
 */
public final class StreamsScaleOutWorker {
  private StreamsScaleOutWorker() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv, Set.of("bootstrap", "app-id", "in", "out", "mode",
        "session-ms", "state-dir", "standbys", "guarantee"));
    boolean count = switch (args.string("mode", "count")) {
      case "count" -> true;
      case "pass" -> false;
      default -> throw new IllegalArgumentException("--mode takes count or pass");
    };
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args.string("app-id", "scale-out"));
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args.string("bootstrap", "127.0.0.1:9092"));
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, Integer.parseInt(args.string("standbys", "0")));
    p.put(StreamsConfig.STATE_DIR_CONFIG, Path.of(args.string("state-dir", "/tmp/ks")).toString());
    p.put(StreamsConfig.consumerPrefix("session.timeout.ms"),
        Long.toString(args.positiveLong("session-ms", 10_000)));
    p.put("auto.offset.reset", "earliest");
    // at_least_once (Kafka Streams' default) or exactly_once_v2, each with its default commit
    // interval (30 s and 100 ms)
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, args.string("guarantee", "at_least_once"));

    StreamsBuilder builder = new StreamsBuilder();
    if (count) {
      builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("counts"),
          Serdes.Bytes(), Serdes.Long()));
    }
    builder.stream(args.string("in", "in"), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .process(() -> new EmitProcessor(count), count ? new String[] {"counts"} : new String[0])
        .to(args.string("out", "out"), Produced.with(Serdes.ByteArray(), Serdes.ByteArray())
            .withStreamPartitioner(new OwnPartition()));

    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    streams.setStateListener((now, before) -> event("state " + now));
    streams.setGlobalStateRestoreListener(new StateRestoreListener() {
      @Override
      public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
        event("restore-start " + tp.partition() + " " + (end - start));
      }

      @Override
      public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {}

      @Override
      public void onRestoreEnd(TopicPartition tp, String store, long restored) {
        event("restore-end " + tp.partition() + " " + restored);
      }
    });
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      streams.close(); // what an application's hook does, with Kafka Streams' defaults
      closed.countDown();
    }));
    streams.start();
    closed.await();
  }

  private static void event(String what) {
    System.out.println("EVENT " + System.currentTimeMillis() + " " + what);
  }

  /** Counts (when asked) and emits. */
  private static final class EmitProcessor implements Processor<byte[], byte[], byte[], byte[]> {
    private final boolean count;
    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<Bytes, Long> counts;

    EmitProcessor(boolean count) {
      this.count = count;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
      this.context = context;
      if (count) {
        counts = context.getStateStore("counts");
      }
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
      if (count) {
        Bytes key = Bytes.wrap(record.key());
        Long n = counts.get(key);
        counts.put(key, n == null ? 1L : n + 1);
      }
      int task = context.recordMetadata().orElseThrow().partition();
      context.forward(record.withValue(Emission.now(task)));
    }
  }

  /** The output partition is the task's, as Millrace's tasks send it. */
  private static final class OwnPartition implements StreamPartitioner<byte[], byte[]> {
    @Override
    public Optional<Set<Integer>> partitions(String topic, byte[] key, byte[] value,
        int numPartitions) {
      return Optional.of(Set.of(Emission.task(value)));
    }
  }
}
