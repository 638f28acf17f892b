package io.millrace.bench.peers;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The pass-through job on Kafka Streams 4.3, for the same-run comparison of {@code bench kafka}:
 * {@code stream(in).mapValues(v -> v).to(out)}, byte-array serdes, one stream thread,
 * at-least-once, everything else Kafka Streams' defaults (see {@link StreamsRun}).
 */
public final class StreamsPassThrough {
  private StreamsPassThrough() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs args = new BenchArgs(argv, Set.of("bootstrap", "topic", "records", "eos",
        "commit-ms"));
    boolean exactlyOnce = args.onOff("eos", false);
    long commitMs = args.positiveLong("commit-ms", 100);
    String bootstrap = args.string("bootstrap", "127.0.0.1:9092");
    String topic = args.string("topic", "bench-in");
    long records = args.positiveLong("records", 10_000_000);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String out = "bench-streams-out-" + run;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      int partitions = admin.describeTopics(List.of(topic)).allTopicNames()
          .get(30, TimeUnit.SECONDS).get(topic).partitions().size();
      admin.createTopics(List.of(new NewTopic(out, partitions, (short) 1))).all()
          .get(30, TimeUnit.SECONDS);
    }
    AtomicLong count = new AtomicLong();
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(topic, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .mapValues(v -> {
          count.lazySet(count.get() + 1); // one stream thread writes it
          return v;
        })
        .to(out, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
    StreamsRun.measure(exactlyOnce ? "streams-eos" : "streams", builder,
        StreamsRun.properties(bootstrap, run, exactlyOnce, commitMs), count, records);
  }
}
