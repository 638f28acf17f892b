package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code job.coordinator=kafka} refuses at start, and how it says so. */
class KafkaCoordinatorErrorsTest {
  @TempDir Path tmp;

  private Map<String, String> job(String in) {
    Map<String, String> c = KafkaTestSupport.job(TestBroker.shared().bootstrapServers(),
        "coord-errors-" + in, UpperCaseTask.class, in, null, tmp.resolve("state").toString());
    c.put("job.coordinator", "kafka");
    c.put("task.checkpoint.system", "kafka");
    return c;
  }

  private String input(int partitions) {
    String topic = topic("coord-in");
    TestBroker.createTopic(TestBroker.shared().bootstrapServers(), topic, partitions);
    return topic;
  }

  @Test
  void anInputThatIsNotOnKafkaIsNamed() throws Exception {
    Map<String, String> c = job(input(2));
    Path file = Files.writeString(tmp.resolve("lines.txt"), "a\nb\n");
    c.put("task.inputs", "in,lines");
    c.put("streams.lines.system", "file");
    c.put("streams.lines.physical.name", file.toString());
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("every input must be a Kafka topic")
        .hasMessageContaining("stream lines is on system 'file'")
        .hasMessageContaining("job.coordinator=local");
  }

  @Test
  void inputsWithDifferentPartitionCountsAreNamedWithTheirCounts() {
    String four = input(4);
    String six = input(6);
    Map<String, String> c = job(four);
    c.put("task.inputs", "in,other");
    c.put("streams.other.system", "kafka");
    c.put("streams.other.physical.name", six);
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("inputs in (topic " + four + ", 4 partitions) and other (topic "
            + six + ", 6 partitions) have different partition counts")
        .hasMessageContaining("co-partitioned");
  }

  @Test
  void fileCheckpointsAreRefusedWithTheReason() {
    Map<String, String> c = job(input(2));
    c.put("task.checkpoint.system", "file");
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("checkpoints are its group's committed offsets")
        .hasMessageContaining("task.checkpoint.system=file would keep them on this machine");
  }

  @Test
  void aStoreWithoutAChangelogIsRefusedWithTheFix() {
    Map<String, String> c = job(input(2));
    c.put("stores.counts.factory", "memory");
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("store counts has no changelog")
        .hasMessageContaining("stores.counts.changelog=kafka.");
  }

  @Test
  void aMisspelledCoordinatorKeyIsNamedWithASuggestion() {
    Map<String, String> c = job(input(2));
    c.put("job.coordinator.sesion.timeout.ms", "6000");
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(c))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("job.coordinator.sesion.timeout.ms")
        .hasMessageContaining("job.coordinator.session.timeout.ms");
  }

  /** Plans a job on a broker of its own, then stops the broker: the job runs without it. */
  private LocalRunner planThenLoseTheBroker(boolean withOutput) throws Exception {
    DevBroker broker = TestBroker.dedicated("coord-join");
    servers = broker.bootstrapServers();
    JobPlan plan;
    try {
      String in = topic("join-in");
      TestBroker.createTopic(servers, in, 2);
      Map<String, String> c = KafkaTestSupport.job(servers, "join-" + in, UpperCaseTask.class, in,
          withOutput ? in + "-out" : null, tmp.resolve("join").toString());
      c.put("job.coordinator", "kafka");
      c.put("job.coordinator.join.timeout.ms", "3000");
      c.put("systems.kafka.producer.max.block.ms", "3000");
      plan = JobPlanner.plan(JobConfig.of(c));
    } finally {
      broker.stop(); // gone between the plan and the run
    }
    LocalRunner runner = new LocalRunner(plan, Clock.SYSTEM);
    runner.start();
    assertThat(runner.await(60, TimeUnit.SECONDS)).as("the job stopped").isTrue();
    assertThat(runner.failure()).isNotNull();
    return runner;
  }

  private String servers;

  @Test
  void aBrokerGoneAtJoinIsAClearErrorNamingTheGroupAndServers() throws Exception {
    LocalRunner runner = planThenLoseTheBroker(false);
    assertThat(runner.failure().getMessage())
        .contains("could not join group join-")
        .contains(servers)
        .contains("job.coordinator.join.timeout.ms");
  }

  @Test
  void aBrokerGoneBeforeTheTransactionsBeginIsAClearErrorNamingTheServersAndTheKey()
      throws Exception {
    // A job with outputs begins its transactions before it joins: that is where it finds out.
    LocalRunner runner = planThenLoseTheBroker(true);
    assertThat(runner.failure().getMessage())
        .contains("cannot reach Kafka system 'kafka' at " + servers)
        .contains("systems.kafka.producer.max.block.ms");
  }
}
