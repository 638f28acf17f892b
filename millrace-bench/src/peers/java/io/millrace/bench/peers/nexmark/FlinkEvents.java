package io.millrace.bench.peers.nexmark;

import io.millrace.bench.nexmark.InputCounter;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.EndOfInput;
import io.millrace.bench.nexmark.events.EventCodec;
import io.millrace.bench.nexmark.events.Person;
import java.io.Serializable;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Flink's sources of the Nexmark events: a bounded Kafka source per topic (from its start to its
 * end as of the job's start; at the end Flink's final watermark closes every window, so the end
 * markers are only counted and dropped), event time from {@code dateTime} with the same 1 s of
 * out-of-orderness as Millrace and Kafka Streams, the same codec.
 */
final class FlinkEvents {
  static final Duration OUT_OF_ORDER = Duration.ofSeconds(1);

  private FlinkEvents() {}

  interface Decoder<T> extends Function<byte[], T>, Serializable {}

  interface Time<T> extends ToLongFunction<T>, Serializable {}

  interface IsEnd<T> extends java.util.function.Predicate<T>, Serializable {}

  /** A {@link DeserializationSchema} on {@link EventCodec}. */
  static final class Schema<T> implements DeserializationSchema<T> {
    private final Class<T> type;
    private final Decoder<T> decoder;

    Schema(Class<T> type, Decoder<T> decoder) {
      this.type = type;
      this.decoder = decoder;
    }

    @Override
    public T deserialize(byte[] message) {
      return decoder.apply(message);
    }

    @Override
    public boolean isEndOfStream(T nextElement) {
      return false;
    }

    @Override
    public TypeInformation<T> getProducedType() {
      return TypeInformation.of(type);
    }
  }

  static DataStream<Bid> bids(StreamExecutionEnvironment env, String bootstrap, String topic,
      String group) {
    return source(env, bootstrap, topic, group, Bid.class, EventCodec::decodeBid,
        Bid::dateTime, EndOfInput::is);
  }

  static DataStream<Auction> auctions(StreamExecutionEnvironment env, String bootstrap,
      String topic, String group) {
    return source(env, bootstrap, topic, group, Auction.class, EventCodec::decodeAuction,
        Auction::dateTime, EndOfInput::is);
  }

  static DataStream<Person> persons(StreamExecutionEnvironment env, String bootstrap,
      String topic, String group) {
    return source(env, bootstrap, topic, group, Person.class, EventCodec::decodePerson,
        Person::dateTime, EndOfInput::is);
  }

  private static <T> DataStream<T> source(StreamExecutionEnvironment env, String bootstrap,
      String topic, String group, Class<T> type, Decoder<T> decoder, Time<T> time,
      IsEnd<T> isEnd) {
    KafkaSource<T> source = KafkaSource.<T>builder()
        .setBootstrapServers(bootstrap)
        .setTopics(topic)
        .setGroupId(group)
        .setStartingOffsets(OffsetsInitializer.earliest())
        .setBounded(OffsetsInitializer.latest())
        .setValueOnlyDeserializer(new Schema<>(type, decoder))
        .build();
    WatermarkStrategy<T> watermarks = WatermarkStrategy.<T>forBoundedOutOfOrderness(OUT_OF_ORDER)
        .withTimestampAssigner((e, ts) -> time.applyAsLong(e));
    return env.fromSource(source, watermarks, topic)
        .filter(e -> {
          InputCounter.add();
          return !isEnd.test(e);
        }).name(topic + "-counted");
  }
}
