package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.TaskFailedException;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code task.processing.guarantee=exactly-once} on a real broker: a task failure leaves nothing
 * of the open transaction visible, and the jobs exactly-once cannot keep are refused at start,
 * naming what is wrong.
 */
class KafkaExactlyOnceTest {
  static final int RECORDS = 2_000;
  static final int COMMIT_AT = 999;
  static final int FAIL_AT = 1_500;
  @TempDir Path tmp;

  /**
   * Sends two records per message; asks for a commit after message {@link #COMMIT_AT}, and throws
   * at message {@link #FAIL_AT} after sending its first record.
   */
  public static final class SendTwiceThenFailTask implements StreamTask {
    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator) {
      long offset = envelope.offset();
      collector.send("out", envelope.partition(), envelope.key(), offset + "-a");
      if (offset == FAIL_AT) {
        throw new IllegalStateException("message " + offset + " fails after sending a record");
      }
      collector.send("out", envelope.partition(), envelope.key(), offset + "-b");
      if (offset == COMMIT_AT) {
        coordinator.commit(TaskCoordinator.Scope.CONTAINER);
      }
    }
  }

  private Map<String, String> exactlyOnceJob(String bootstrap, String in, String out) {
    Map<String, String> config = job(bootstrap, "eos-" + in, SendTwiceThenFailTask.class, in, out,
        tmp.resolve("state").toString());
    config.put("task.processing.guarantee", "exactly-once");
    config.put("task.checkpoint.system", "kafka");
    return config;
  }

  @Test
  void aTaskFailureUnderFailLeavesNothingOfTheOpenTransactionVisible() throws Exception {
    DevBroker broker = TestBroker.shared();
    String in = topic("eos-fail-in");
    String out = topic("eos-fail-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    List<String[]> records = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      records.add(new String[] {"k" + i, "v" + i});
    }
    TestBroker.write(broker.bootstrapServers(), in, 0, records);
    Map<String, String> config = exactlyOnceJob(broker.bootstrapServers(), in, out);
    config.put("task.commit.ms", "60000"); // in effect, only the task's request commits

    LocalRunner runner = start(config);
    assertThat(runner.await(60, TimeUnit.SECONDS)).as("the job stops on the failure").isTrue();
    assertThat(runner.failure()).isInstanceOf(TaskFailedException.class);

    assertThat(readCommittedCheckpoint(config))
        .containsEntry(new StreamPartition("kafka", "in", 0), (long) COMMIT_AT);
    List<String> committed = values(readAll(broker.bootstrapServers(), out, true));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i <= COMMIT_AT; i++) {
      expected.add(i + "-a");
      expected.add(i + "-b");
    }
    assertThat(committed).as("a reader of committed data sees the committed messages' records, "
        + "nothing after").containsExactlyElementsOf(expected);
    // The records of the aborted transaction were sent (a reader of uncommitted data sees them),
    // the failed message's first one included: only the abort keeps them from readers.
    assertThat(values(readAll(broker.bootstrapServers(), out, false)))
        .contains((COMMIT_AT + 1) + "-a", FAIL_AT + "-a");
  }

  @Test
  void checkpointsOutsideTheOutputsTransactionAreRefused() {
    Map<String, String> config = exactlyOnceJob("127.0.0.1:1", "in", "out");
    config.remove("task.checkpoint.system");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.checkpoint.system=file cannot be written in a transaction")
        .hasMessageContaining("task.processing.guarantee=exactly-once");
  }

  @Test
  void anOutputOnASystemWithoutTransactionsIsRefused() {
    Map<String, String> config = exactlyOnceJob("127.0.0.1:1", "in", "out");
    config.put("task.outputs", "out,copy");
    config.put("streams.copy.system", "file");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("output stream copy is on system 'file', which cannot take part in "
            + "a transaction");
  }

  @Test
  void outputsOnTwoKafkaSystemsAreRefused() {
    Map<String, String> config = exactlyOnceJob("127.0.0.1:1", "in", "out");
    config.put("systems.other.factory", "kafka");
    config.put("systems.other.bootstrap.servers", "127.0.0.1:2");
    config.put("streams.out.system", "other");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("output stream out is on system 'other' but the checkpoints "
            + "(task.checkpoint.system) on 'kafka'");
  }

  @Test
  void commitsOnlyOnRequestAreRefused() {
    Map<String, String> config = exactlyOnceJob("127.0.0.1:1", "in", "out");
    config.put("task.commit.ms", "0");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("task.commit.ms")
        .hasMessageContaining("a positive interval under task.processing.guarantee=exactly-once");
  }

  @Test
  void aStoreWithoutAChangelogIsRefused() {
    Map<String, String> config = exactlyOnceJob("127.0.0.1:1", "in", "out");
    config.put("stores.counts.factory", "memory");
    assertThatThrownBy(() -> JobPlanner.check(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("store counts has no changelog under "
            + "task.processing.guarantee=exactly-once");
  }

  @Test
  void underTheKafkaCoordinatorAnOutputOffTheGroupsSystemIsRefused() {
    DevBroker broker = TestBroker.shared();
    String in = topic("eos-group-in");
    TestBroker.createTopic(broker.bootstrapServers(), in, 1);
    Map<String, String> config = exactlyOnceJob(broker.bootstrapServers(), in, topic("o"));
    config.remove("task.checkpoint.system");
    config.put("job.coordinator", "kafka");
    config.put("systems.other.factory", "kafka");
    config.put("systems.other.bootstrap.servers", broker.bootstrapServers());
    config.put("streams.out.system", "other");
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(config)).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("output stream out is on system 'other'")
        .hasMessageContaining("on the group's Kafka system 'kafka'");
  }

  /** The job's checkpoint as a reader of committed data sees it (no fencing: the job may run). */
  static Map<StreamPartition, Long> readCommittedCheckpoint(Map<String, String> config) {
    Map<String, String> committed = new HashMap<>(config);
    committed.put("systems.kafka.consumer.isolation.level", "read_committed");
    committed.remove("task.processing.guarantee");
    return readCheckpoint(settings(committed), config.get("job.name"));
  }

  static List<String> values(List<ConsumerRecord<String, String>> records) {
    List<String> values = new ArrayList<>();
    records.forEach(r -> values.add(r.value()));
    return values;
  }
}
