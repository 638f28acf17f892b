package io.millrace.bench.peers;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;

/**
 * A count per key on Kafka Streams 4.3, for the same-run comparison of {@code bench kafka --modes
 * count,streams-count}: {@code stream(in).groupByKey().count()} into a RocksDB store whose
 * changelog Kafka Streams creates, byte-array keys, one stream thread, at-least-once, everything
 * else Kafka Streams' defaults (10 MB record cache, commit every 30 s; see {@link StreamsRun}).
 */
public final class StreamsCount {
  private StreamsCount() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv, Set.of("bootstrap", "topic", "records", "eos",
        "commit-ms"));
    boolean exactlyOnce = args.onOff("eos", false);
    long commitMs = args.positiveLong("commit-ms", 100);
    String bootstrap = args.string("bootstrap", "127.0.0.1:9092");
    String topic = args.string("topic", "bench-in");
    long records = args.positiveLong("records", 10_000_000);
    String run = UUID.randomUUID().toString().substring(0, 8);
    AtomicLong count = new AtomicLong();
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .peek((k, v) -> count.lazySet(count.get() + 1)) // one stream thread writes it
        .groupByKey(Grouped.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .count(Materialized.as("counts"));
    StreamsRun.measure(exactlyOnce ? "streams-count-eos" : "streams-count", builder,
        StreamsRun.properties(bootstrap, run, exactlyOnce, commitMs), count, records);
  }
}
