package io.millrace.kafka;

import io.millrace.kafka.settings.KafkaSettings;
import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.kafka.dev.DevBroker;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a user sees when a Kafka job cannot start: each message names what is wrong. */
class KafkaStartupErrorsTest {
  @TempDir Path state;

  @Test
  void aMissingInputTopicIsNamed() {
    DevBroker broker = TestBroker.shared();
    Map<String, String> config = job(broker.bootstrapServers(), "missing", UpperCaseTask.class,
        "no-such-topic", null, state.toString());

    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(config)))
        .hasMessageContaining("input topic 'no-such-topic' (stream in) does not exist")
        .hasMessageContaining(broker.bootstrapServers());
  }

  @Test
  void anUnreachableBrokerIsAClearErrorAfterTheStartupTimeout() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    Map<String, String> config = job("127.0.0.1:" + closedPort, "unreachable",
        UpperCaseTask.class, "in", null, state.toString());
    config.put("systems.kafka.startup.timeout.ms", "1500");

    long start = System.nanoTime();
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(config)))
        .hasMessageContaining("cannot reach Kafka system 'kafka'")
        .hasMessageContaining("systems.kafka.bootstrap.servers=127.0.0.1:" + closedPort)
        .hasMessageContaining("within 1500 ms (systems.kafka.startup.timeout.ms)");
    // Kafka's own default (default.api.timeout.ms) is 60 s: well under it, the job's time-out
    // was the one applied, however busy the machine.
    assertThat((System.nanoTime() - start) / 1e9).as("seconds to fail").isLessThan(45);
  }

  @Test
  void aMisspelledConsumerSettingIsRefusedWithASuggestion() {
    Map<String, String> config = job("127.0.0.1:9092", "typo", UpperCaseTask.class, "in", null,
        state.toString());
    config.put("systems.kafka.consumer.fetch.max.byte", "1000");

    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown Kafka consumer setting systems.kafka.consumer.fetch.max.byte")
        .hasMessageContaining("did you mean systems.kafka.consumer.fetch.max.bytes?");
  }

  @Test
  void settingsMillraceOwnsAreRefusedWithTheReason() {
    Map<String, String> config = job("127.0.0.1:9092", "owned", UpperCaseTask.class, "in", null,
        state.toString());
    config.put("systems.kafka.consumer.value.deserializer", "x");

    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("systems.kafka.consumer.value.deserializer cannot be set")
        .hasMessageContaining("streams.<id>.value.serde");
  }

  /**
   * Where the job writes in Kafka transactions, its consumers read committed data: a key saying
   * otherwise made restores apply a crashed commit's aborted changelog writes (a count then held
   * the inputs it processed again: SamzaCrashTripTest, its Millrace file so set, counted them
   * twice), so it is refused.
   */
  @Test
  void readingUncommittedDataIsRefusedWhereTheJobWritesInTransactions() {
    Map<String, String> config = job("127.0.0.1:9092", "uncommitted", UpperCaseTask.class, "in",
        null, state.toString());
    config.put("systems.kafka.consumer.isolation.level", "read_uncommitted");
    JobPlanner.check(JobConfig.of(config)); // at-least-once: the user's choice

    config.put("task.processing.guarantee", "exactly-once");
    config.put("task.checkpoint.system", "kafka");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("bad value 'read_uncommitted' for"
            + " systems.kafka.consumer.isolation.level")
        .hasMessageContaining("expected read_committed, or no such key, since the job is"
            + " exactly-once (task.processing.guarantee=exactly-once): reading uncommitted data,"
            + " its stores would restore the changelog writes of commits that failed")
        .message().doesNotContain("\n");

    Map<String, String> grouped = new java.util.HashMap<>(config);
    grouped.remove("task.processing.guarantee");
    grouped.put("job.coordinator", "kafka");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(grouped)))
        .hasMessageContaining("since the job commits in Kafka transactions on this cluster"
            + " (job.coordinator=kafka)");

    config.put("systems.kafka.consumer.isolation.level", "read_committed");
    JobPlanner.check(JobConfig.of(config)); // what Millrace reads anyway
  }

  @Test
  void securitySettingsPassThroughToEveryClient() {
    Map<String, String> config = job("127.0.0.1:9092", "sasl", UpperCaseTask.class, "in", null,
        state.toString());
    config.put("systems.kafka.security.protocol", "SASL_SSL");
    config.put("systems.kafka.sasl.mechanism", "PLAIN");
    config.put("systems.kafka.producer.linger.ms", "20");

    JobPlanner.check(JobConfig.of(config)); // accepted
    KafkaSettings settings = KafkaTestSupport.settings(config);
    assertThat(settings.consumerProperties("c")).containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN").doesNotContainKey("linger.ms");
    assertThat(settings.producerProperties("p")).containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("linger.ms", "20");
    assertThat(settings.adminProperties("a")).containsEntry("sasl.mechanism", "PLAIN");
  }

  @Test
  void aMissingBootstrapServersKeyIsNamed() {
    Map<String, String> config = job("127.0.0.1:9092", "no-servers", UpperCaseTask.class, "in",
        null, state.toString());
    config.remove("systems.kafka.bootstrap.servers");

    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("missing required key systems.kafka.bootstrap.servers");
  }
}
