package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.StreamPartition;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A record that is not JSON, on a JSON stream, under each task.error.policy. */
class KafkaPoisonMessageTest {
  static final int RECORDS = 20;
  static final int POISON = 7;
  @TempDir Path state;

  private Map<String, String> jobWithPoison(String name, String policy) {
    DevBroker broker = TestBroker.shared();
    String in = topic("json-in");
    String out = topic("json-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    List<String[]> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      records.add(new String[] {"k" + i, i == POISON ? "{not json" : "{\"n\":" + i + "}"});
    }
    TestBroker.write(broker.bootstrapServers(), in, 0, records);
    Map<String, String> config = job(broker.bootstrapServers(), name, CopyJsonTask.class, in, out,
        state.toString());
    config.put("streams.in.value.serde", "json");
    config.put("streams.out.value.serde", "json");
    config.put("task.error.policy", policy);
    return config;
  }

  @Test
  void underFailTheJobStopsNamingTheOffsetAndCommitsOnlyWhatCameBefore() throws Exception {
    Map<String, String> config = jobWithPoison("poison-fail", "fail");
    LocalRunner runner = start(config);
    assertThat(runner.await(60, TimeUnit.SECONDS)).isTrue();

    assertThat(runner.failure()).hasMessageContaining("cannot deserialize")
        .hasMessageContaining("offset " + POISON)
        .hasMessageContaining("topic " + config.get("streams.in.physical.name"));
    Long committed = new FileCheckpointStore(state.resolve("checkpoints")).read()
        .get(new StreamPartition("kafka", "in", 0));
    assertThat(committed).isEqualTo(POISON - 1);
    List<ConsumerRecord<String, String>> out = readAll(
        config.get("systems.kafka.bootstrap.servers"), config.get("streams.out.physical.name"));
    assertThat(out).hasSize(POISON);
  }

  @Test
  void underSkipEveryOtherRecordGoesThroughAndTheBadOneIsCounted() throws Throwable {
    Map<String, String> config = jobWithPoison("poison-skip", "skip");
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "all read", () -> runner.processed() >= RECORDS);
    stop(runner);

    List<ConsumerRecord<String, String>> out = readAll(
        config.get("systems.kafka.bootstrap.servers"), config.get("streams.out.physical.name"));
    assertThat(out).hasSize(RECORDS - 1);
    assertThat(out).extracting(ConsumerRecord::value).doesNotContain("{not json");
    assertThat(runner.plan().metrics().snapshot().get("container-0"))
        .containsEntry("messages-skipped", 1L);
  }

  @Test
  void underDeadLetterTheBadRecordGoesToTheDeadLetterTopicWithItsError() throws Throwable {
    Map<String, String> config = jobWithPoison("poison-dlq", "dead-letter");
    String dead = deadLetterTo(config, "dead");
    config.put("streams.dead.key.serde", "bytes"); // an unreadable record keeps its raw key
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "all read", () -> runner.processed() >= RECORDS);
    stop(runner);

    List<ConsumerRecord<String, String>> letters = readAll(
        config.get("systems.kafka.bootstrap.servers"), dead);
    assertThat(letters).hasSize(1);
    assertThat(letters.get(0).value()).contains("\"offset\":" + POISON)
        .contains("cannot deserialize the value");
    assertThat(readAll(config.get("systems.kafka.bootstrap.servers"),
        config.get("streams.out.physical.name"))).hasSize(RECORDS - 1);
  }

  /** Copies, but throws on the message at offset {@link #THROWS}. */
  public static final class ThrowingCopyTask implements io.millrace.api.StreamTask {
    @Override
    public void process(io.millrace.api.Envelope envelope, io.millrace.api.Collector collector,
        io.millrace.api.TaskCoordinator coordinator) {
      if (envelope.offset() == THROWS) {
        throw new IllegalStateException("task refuses " + envelope.key());
      }
      collector.send("out", envelope.partition(), envelope.key(), envelope.value());
    }
  }

  static final int THROWS = 12;

  @Test
  void deadLettersOfAnUnreadableAndOfAFailedMessageKeepTheirKeysInTheDeadLetterStreamsOwnSerde()
      throws Throwable {
    Map<String, String> config = jobWithPoison("poison-dlq-keys", "dead-letter");
    config.put("task.class", ThrowingCopyTask.class.getName());
    String dead = deadLetterTo(config, "dead-keys");
    config.put("streams.dead.key.serde", "string"); // not bytes: both kinds of key must fit it
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "all read", () -> runner.processed() >= RECORDS);
    stop(runner);

    List<ConsumerRecord<String, String>> letters = readAll(
        config.get("systems.kafka.bootstrap.servers"), dead);
    assertThat(letters).extracting(ConsumerRecord::key)
        .containsExactlyInAnyOrder("k" + POISON, "k" + THROWS);
    assertThat(letters).extracting(ConsumerRecord::value).anySatisfy(v -> assertThat(v)
        .contains("\"stage\":\"read\"")).anySatisfy(v -> assertThat(v)
        .contains("\"stage\":\"process\"").contains("task refuses k" + THROWS));
  }

  @Test
  void anUnreadableRecordsDeadLetterKeepsItsHeadersAndTimestamp() throws Throwable {
    Map<String, String> config = jobWithPoison("poison-dlq-headers", "dead-letter");
    String bootstrap = config.get("systems.kafka.bootstrap.servers");
    try (var producer = TestBroker.producer(bootstrap)) {
      var poison = new org.apache.kafka.clients.producer.ProducerRecord<String, String>(
          config.get("streams.in.physical.name"), 0, 42_000L, "traced", "{also not json");
      poison.headers().add("trace-id", "t-1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      producer.send(poison).get(30, TimeUnit.SECONDS);
    }
    String dead = deadLetterTo(config, "dead-headers");
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "all read", () -> runner.processed() >= RECORDS + 1);
    stop(runner);

    assertThat(readAll(bootstrap, dead)).filteredOn(r -> "traced".equals(r.key()))
        .singleElement().satisfies(letter -> {
          assertThat(letter.timestamp()).isEqualTo(42_000L);
          assertThat(letter.headers().lastHeader("trace-id").value()).asString()
              .isEqualTo("t-1");
        });
  }
}
