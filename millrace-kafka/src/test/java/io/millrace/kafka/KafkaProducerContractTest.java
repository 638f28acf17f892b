package io.millrace.kafka;

import io.millrace.api.Headers;
import io.millrace.api.Serde;
import io.millrace.core.system.SystemProducerContract;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The producer contract on Kafka, against the test broker: each output a topic of its own, read
 * back by a plain consumer from the start of the partition to its end.
 */
class KafkaProducerContractTest extends SystemProducerContract {
  @Override
  protected StreamSpec output(String name, int partitions, Serde<?> keySerde,
      Serde<?> valueSerde) {
    String topic = KafkaTestSupport.topic(name);
    TestBroker.createTopic(TestBroker.shared().bootstrapServers(), topic, partitions);
    return new StreamSpec(name, topic, keySerde, valueSerde);
  }

  @Override
  protected SystemProducer newProducer() {
    return new KafkaSystemFactory().producer(context("kafka",
        Map.of("bootstrap.servers", TestBroker.shared().bootstrapServers())));
  }

  @Override
  protected List<Written> read(StreamSpec stream, int partition) {
    Properties p = new Properties();
    p.put("bootstrap.servers", TestBroker.shared().bootstrapServers());
    TopicPartition tp = new TopicPartition(stream.physicalName(), partition);
    List<Written> written = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p,
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(60)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (consumer.position(tp, Duration.ofSeconds(60)) < end) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + tp + " to its end, offset " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          written.add(new Written(r.offset(), (String) stream.keySerde().fromBytes(r.key()),
              (String) stream.valueSerde().fromBytes(r.value()), r.timestamp(), headers(r)));
        }
      }
    }
    return written;
  }

  private static Headers headers(ConsumerRecord<byte[], byte[]> r) {
    Headers headers = Headers.EMPTY;
    for (Header h : r.headers()) {
      headers = headers.with(h.key(), h.value());
    }
    return headers;
  }

  @Override
  protected boolean hasOffsets() {
    return true;
  }

  @Override
  protected boolean carriesHeadersAndTimestamps() {
    return true;
  }

  @Override
  protected boolean serializes() {
    return true;
  }
}
