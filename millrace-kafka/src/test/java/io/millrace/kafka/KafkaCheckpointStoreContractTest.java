package io.millrace.kafka;

import io.millrace.api.StreamPartition;
import io.millrace.core.checkpoint.CheckpointStoreContract;
import io.millrace.kafka.checkpoint.KafkaCheckpointStore;
import io.millrace.spi.checkpoint.CheckpointStore;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The checkpoint store contract on a job's compacted checkpoint topic (a topic of its own per
 * test), on the test broker.
 */
class KafkaCheckpointStoreContractTest extends CheckpointStoreContract {
  private final String topic = KafkaTestSupport.topic("__checkpoints-contract");
  private final String job = "ckpt-contract-" + topic;

  @Override
  protected CheckpointStore openStore(int partitions) {
    Map<String, String> c = KafkaTestSupport.job(TestBroker.shared().bootstrapServers(), job,
        UpperCaseTask.class, "in", null, "unused");
    c.put("systems.kafka.checkpoint.topic", topic);
    return new KafkaCheckpointStore(KafkaTestSupport.settings(c), job);
  }

  @Override
  protected String system() {
    return "kafka";
  }

  /** A record for the partition's task that is not a checkpoint, after the good one. */
  @Override
  protected void damage(StreamPartition partition) throws Exception {
    try (KafkaProducer<String, String> producer = TestBroker.producer(
        TestBroker.shared().bootstrapServers())) {
      producer.send(new ProducerRecord<>(topic, 0, "task-" + partition.partition(),
          "millrace-checkpoint 1\nkafka\ta\tnot a number\n")).get();
    }
  }

  @Override
  protected String where() {
    return topic;
  }
}
