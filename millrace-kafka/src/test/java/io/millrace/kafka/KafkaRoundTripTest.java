package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
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

  /** Sends each record on as it came, and once more with a header added and its own time. */
  public static class TraceTask implements StreamTask {
    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      out.send("out", e.partition(), e.key(), e.value());
      out.send("out", e.partition(), e.key(), e.value() + "+", e.timestamp() + 7,
          e.headers().with("seen-by", "trace"));
    }
  }

  @Test
  void headersAreReadAndWrittenAndAnOutputCarriesItsInputsTimestamp() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("trace-in");
    String out = topic("trace-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    try (KafkaProducer<String, String> producer = TestBroker.producer(broker.bootstrapServers())) {
      producer.send(new ProducerRecord<>(in, 0, 1_700_000_000_000L, "k", "v",
          List.of(new RecordHeader("trace-id", "t1".getBytes(StandardCharsets.UTF_8)))));
      producer.flush();
    }

    Map<String, String> config = job(broker.bootstrapServers(), "trace", TraceTask.class, in, out,
        state.toString());
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "the record processed", () -> runner.processed() >= 1);
    stop(runner);

    List<ConsumerRecord<String, String>> written = readAll(broker.bootstrapServers(), out);
    assertThat(written).extracting(ConsumerRecord::value).containsExactly("v", "v+");
    assertThat(written.get(0).timestamp()).as("the input's").isEqualTo(1_700_000_000_000L);
    assertThat(written.get(0).headers().toArray()).as("none unless given").isEmpty();
    assertThat(written.get(1).timestamp()).isEqualTo(1_700_000_000_007L);
    assertThat(written.get(1).headers().lastHeader("trace-id").value()).asString()
        .isEqualTo("t1");
    assertThat(written.get(1).headers().lastHeader("seen-by").value()).asString()
        .isEqualTo("trace");
  }
}
