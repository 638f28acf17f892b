package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaRoundTripTest {
  @TempDir Path state;

  @Test
  void everyRecordGoesThroughTheTaskToTheOutputTopicInOrderPerPartition() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("in");
    String out = topic("out");
    TestBroker.createTopic(broker.bootstrapServers(), in, 4);
    for (int p = 0; p < 4; p++) {
      List<String[]> records = new ArrayList<>();
      for (int i = 0; i < 250; i++) {
        records.add(new String[] {"k" + i, "p" + p + "-m" + i});
      }
      TestBroker.write(broker.bootstrapServers(), in, p, records);
    }

    Map<String, String> config = job(broker.bootstrapServers(), "round-trip", UpperCaseTask.class,
        in, out, state.toString());
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "1000 processed", () -> runner.processed() >= 1000);
    stop(runner);

    List<ConsumerRecord<String, String>> written = readAll(broker.bootstrapServers(), out);
    assertThat(written).hasSize(1000);
    for (int p = 0; p < 4; p++) {
      int partition = p;
      List<String> values = written.stream().filter(r -> r.partition() == partition)
          .map(ConsumerRecord::value).toList();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 250; i++) {
        expected.add(("p" + p + "-m" + i).toUpperCase());
      }
      assertThat(values).as("partition %d, in order", p).containsExactlyElementsOf(expected);
    }
    assertThat(written.get(0).key()).startsWith("k");
  }
}
