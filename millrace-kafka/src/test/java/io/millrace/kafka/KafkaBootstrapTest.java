package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bootstrap stream on Kafka is read to its head as of start before any other input, even when
 * its last offset is a transaction marker (no message there: the consumer's position tells).
 */
class KafkaBootstrapTest {
  static final List<String> seen = Collections.synchronizedList(new ArrayList<>());
  @TempDir Path state;

  /** Records which stream each message came from, in order. */
  public static final class RecordingTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      seen.add(envelope.stream());
    }
  }

  @Test
  void theTableIsReadToItsHeadFirstEvenWhenItEndsWithATransactionMarker() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String table = topic("table");
    String events = topic("events");
    TestBroker.createTopic(broker.bootstrapServers(), table, 1);
    TestBroker.createTopic(broker.bootstrapServers(), events, 1);
    List<String[]> eventRecords = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      eventRecords.add(new String[] {"u" + (i % 10), "view-" + i});
    }
    TestBroker.write(broker.bootstrapServers(), events, 0, eventRecords);
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("transactional.id", "table-writer-" + table);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
        new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 200; i++) {
        producer.send(new ProducerRecord<>(table, 0, "u" + i, "user-" + i));
      }
      producer.commitTransaction(); // the partition now ends with a commit marker
    }

    Map<String, String> config = job(broker.bootstrapServers(), "bootstrap",
        RecordingTask.class, events, null, state.toString());
    config.put("task.inputs", "table,in");
    config.put("streams.table.system", "kafka");
    config.put("streams.table.physical.name", table);
    config.put("streams.table.bootstrap", "true");
    seen.clear();
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "700 processed", () -> runner.processed() >= 700);
    stop(runner);

    assertThat(seen).hasSize(700);
    assertThat(seen.subList(0, 200)).as("the whole table first").containsOnly("table");
    assertThat(seen.subList(200, 700)).containsOnly("in");
  }
}
