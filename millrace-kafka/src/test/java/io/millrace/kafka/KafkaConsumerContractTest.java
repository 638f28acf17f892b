package io.millrace.kafka;

import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.system.SystemConsumerContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The consumer contract on Kafka, against the test broker: the fetch thread reads ahead of the
 * loop, so what an unregistered partition had fetched is already in the hand-off, and only its
 * epoch keeps it from the loop.
 */
class KafkaConsumerContractTest extends SystemConsumerContract {
  @Override
  protected StreamSpec stream(String name, int partitions, int messages) {
    String bootstrap = TestBroker.shared().bootstrapServers();
    String topic = KafkaTestSupport.topic(name);
    TestBroker.createTopic(bootstrap, topic, partitions);
    for (int p = 0; p < partitions; p++) {
      List<String[]> records = new ArrayList<>();
      for (int i = 0; i < messages; i++) {
        records.add(new String[] {null, "p" + p + "-" + i});
      }
      TestBroker.write(bootstrap, topic, p, records);
    }
    return new StreamSpec(name, topic, new StringSerde(), new StringSerde());
  }

  @Override
  protected SystemConsumer newConsumer() {
    return new KafkaSystemFactory().consumer(context("kafka",
        Map.of("bootstrap.servers", TestBroker.shared().bootstrapServers(),
            // Small fetches and batches: the hand-off holds many batches the loop has not taken.
            "consumer.max.partition.fetch.bytes", "4096",
            "handoff.batch.size", "16")));
  }
}
