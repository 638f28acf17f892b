package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;
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
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output record refused: by the producer within its send (larger than max.request.size), which
 * is the sending message's own failure and gets the error policy; or by the broker later (larger
 * than the topic's max.message.bytes), which no later message is charged with: the job stops and
 * no checkpoint passes it. Under skip either is counted and the job goes on.
 */
class KafkaSendErrorTest {
  static final int RECORDS = 50;
  static final int HUGE = 30;
  @TempDir Path state;

  /** Sends a small record per message, and a 20 KB one for message {@link #HUGE}. */
  public static final class SometimesHugeTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      String value = envelope.offset() == HUGE ? "x".repeat(20_000) : (String) envelope.value();
      collector.send("out", envelope.key(), value);
      if (envelope.offset() == HUGE + 5) {
        coordinator.commit(TaskCoordinator.Scope.TASK); // a commit after the refused record
      }
    }
  }

  /** As {@link SometimesHugeTask}, with no commit of its own. */
  public static final class HugeOnceTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      String value = envelope.offset() == HUGE ? "x".repeat(20_000) : (String) envelope.value();
      collector.send("out", envelope.key(), value);
    }
  }

  private Map<String, String> job(String name, String policy) {
    return job(name, policy, topic("send-out"));
  }

  private Map<String, String> job(String name, String policy, String out) {
    DevBroker broker = TestBroker.shared();
    String in = topic("send-in");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    List<String[]> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      records.add(new String[] {"k" + i, "v" + i});
    }
    TestBroker.write(broker.bootstrapServers(), in, 0, records);
    Map<String, String> config = KafkaTestSupport.job(broker.bootstrapServers(), name,
        SometimesHugeTask.class, in, out, state.toString());
    config.put("systems.kafka.producer.max.request.size", "10000");
    config.put("task.error.policy", policy);
    return config;
  }

  @Test
  void underFailTheRefusalIsChargedToTheMessageThatSentIt() throws Exception {
    LocalRunner runner = start(job("send-fail-charged", "fail"));
    assertThat(runner.await(60, TimeUnit.SECONDS)).isTrue();

    assertThat(runner.failure()).hasMessageContaining("in/0 offset " + HUGE + ":")
        .hasMessageContaining("refused").hasMessageContaining("send-out-")
        .hasMessageContaining("RecordTooLarge");
    Long committed = new FileCheckpointStore(state.resolve("checkpoints")).read()
        .get(new StreamPartition("kafka", "in", 0));
    assertThat(committed).isEqualTo(HUGE - 1);
  }

  @Test
  void underDeadLetterTheMessageThatSentTheRefusedRecordIsDeadLetteredAndNoOther()
      throws Throwable {
    Map<String, String> config = job("send-dlq", "dead-letter");
    String dead = deadLetterTo(config, "send-dead");
    LocalRunner runner = start(config);
    await(Duration.ofSeconds(60), "all processed", () -> runner.processed() >= RECORDS);
    stop(runner);

    String bootstrap = config.get("systems.kafka.bootstrap.servers");
    List<ConsumerRecord<String, String>> letters = readAll(bootstrap, dead);
    assertThat(letters).singleElement().satisfies(letter -> assertThat(letter.value())
        .contains("\"offset\":" + HUGE).contains("RecordTooLarge"));
    assertThat(readAll(bootstrap, config.get("streams.out.physical.name"))).hasSize(RECORDS - 1);
  }

  @Test
  void underDeadLetterARecordTheBrokerRefusesLaterStopsTheJobAndNoMessageIsDeadLettered()
      throws Exception {
    String bootstrap = TestBroker.shared().bootstrapServers();
    String out = topic("send-small");
    // The producer lets a 20 KB record go (max.request.size stays at its 1 MB default); the
    // broker refuses it for this topic, after the send returned.
    TestBroker.createTopic(bootstrap, out, 1, Map.of("max.message.bytes", "5000"));
    Map<String, String> config = job("send-dlq-late", "dead-letter", out);
    config.remove("systems.kafka.producer.max.request.size");
    // The producer splits and retries a batch the broker calls too large until its delivery
    // time-out (2 minutes by default): shorter here, so the refusal comes within the test.
    config.put("systems.kafka.producer.request.timeout.ms", "2000");
    config.put("systems.kafka.producer.delivery.timeout.ms", "5000");
    String dead = deadLetterTo(config, "send-dead-late");
    config.put("task.class", HugeOnceTask.class.getName());
    config.put("task.commit.ms", "600000"); // no commit meets the refusal first
    LocalRunner runner = start(config);
    // Input keeps coming, so messages are processed after the refusal reached the producer: none
    // of them may be charged with it.
    feedUntilStopped(runner, bootstrap, config.get("streams.in.physical.name"));

    assertThat(runner.failure()).hasMessageContaining("was not acknowledged")
        .hasMessageContaining(out).hasMessageContaining("not charged");
    assertThat(readAll(bootstrap, dead)).isEmpty();
    Long committed = new FileCheckpointStore(state.resolve("checkpoints")).read()
        .get(new StreamPartition("kafka", "in", 0));
    assertThat(committed == null || committed < HUGE).as("checkpoint %s", committed).isTrue();
  }

  /**
   * Writes a record to {@code topic} every 100 ms until the job stops (60 s at most), so messages
   * are processed after a refusal reached the producer.
   */
  private static void feedUntilStopped(LocalRunner runner, String bootstrap, String topic)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (var producer = TestBroker.producer(bootstrap)) {
      for (int more = 0; !runner.await(100, TimeUnit.MILLISECONDS); more++) {
        assertThat(System.nanoTime() - deadline).as("job still running after 60 s").isNegative();
        producer.send(new ProducerRecord<>(topic, 0, "later" + more, "v" + more))
            .get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Counts per key in a changelogged store; the count of key {@link #HUGE} is 20 KB long. */
  public static final class HugeStateTask implements StreamTask, InitableTask {
    private KeyValueStore<String, String> counts;

    @Override
    public void init(TaskContext context) {
      counts = context.store("counts");
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      String key = (String) envelope.key();
      counts.put(key, key.equals("k" + HUGE) ? "x".repeat(20_000) : "1");
      collector.send("out", key, "1");
    }
  }

  @Test
  void underDeadLetterARefusedChangelogRecordStopsTheJobAndNoMessageIsDeadLettered()
      throws Exception {
    Map<String, String> config = job("send-changelog", "dead-letter");
    String bootstrap = config.get("systems.kafka.bootstrap.servers");
    String dead = deadLetterTo(config, "send-dead-changelog");
    config.put("task.class", HugeStateTask.class.getName());
    config.put("stores.counts.factory", "memory");
    String changelog = topic("send-changelog");
    config.put("stores.counts.changelog", "kafka." + changelog);
    config.put("stores.counts.write.batch.size", "1"); // each put flushes: the refusal comes mid-run
    config.put("task.commit.ms", "600000");
    LocalRunner runner = start(config);
    feedUntilStopped(runner, bootstrap, config.get("streams.in.physical.name"));

    // Named by the flush that sent it, or by the next send that saw it first (on the loop thread
    // while the flusher's thread was still in that send): either way no message is charged.
    assertThat(runner.failure()).hasMessageContaining(changelog)
        .hasMessageContaining("RecordTooLarge");
    assertThat(readAll(bootstrap, dead)).isEmpty();
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
