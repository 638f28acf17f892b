package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.Coordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output record the broker refuses (too large for the producer's max.request.size): under fail
 * the commit does not pass it and the job stops naming the topic; under skip it is counted.
 */
class KafkaSendErrorTest {
  static final int RECORDS = 50;
  static final int HUGE = 30;
  @TempDir Path state;

  /** Sends a small record per message, and a 20 KB one for message {@link #HUGE}. */
  public static final class SometimesHugeTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, Coordinator coordinator) {
      String value = envelope.offset() == HUGE ? "x".repeat(20_000) : (String) envelope.value();
      collector.send("out", envelope.key(), value);
      if (envelope.offset() == HUGE + 5) {
        coordinator.commit(Coordinator.Scope.TASK); // a commit after the refused record
      }
    }
  }

  private Map<String, String> job(String name, String policy) {
    DevBroker broker = TestBroker.shared();
    String in = topic("send-in");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    List<String[]> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      records.add(new String[] {"k" + i, "v" + i});
    }
    TestBroker.write(broker.bootstrapServers(), in, 0, records);
    Map<String, String> config = KafkaTestSupport.job(broker.bootstrapServers(), name,
        SometimesHugeTask.class, in, topic("send-out"), state.toString());
    config.put("systems.kafka.producer.max.request.size", "10000");
    config.put("task.error.policy", policy);
    return config;
  }

  @Test
  void underFailARefusedRecordStopsTheJobAndNoCheckpointPassesIt() throws Exception {
    LocalRunner runner = start(job("send-fail", "fail"));
    assertThat(runner.await(60, TimeUnit.SECONDS)).isTrue();

    assertThat(runner.failure()).hasMessageContaining("was not acknowledged")
        .hasMessageContaining("send-out-").hasMessageContaining("RecordTooLarge");
    Long committed = new FileCheckpointStore(state.resolve("checkpoints")).read()
        .get(new StreamPartition("kafka", "in", 0));
    assertThat(committed == null || committed < HUGE).as("checkpoint %s", committed).isTrue();
  }

  @Test
  void underSkipARefusedRecordIsCountedAndTheJobGoesOn() throws Throwable {
    LocalRunner runner = start(job("send-skip", "skip"));
    await(Duration.ofSeconds(60), "all processed", () -> runner.processed() >= RECORDS);
    stop(runner);

    assertThat(runner.plan().metrics().snapshot().get("container-0"))
        .containsEntry("kafka-send-failed", 1L);
    Long committed = new FileCheckpointStore(state.resolve("checkpoints")).read()
        .get(new StreamPartition("kafka", "in", 0));
    assertThat(committed).isEqualTo(RECORDS - 1);
  }
}
