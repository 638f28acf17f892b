package io.millrace.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.api.config.JobConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link JobPlanner#check} and {@link JobPlanner#plan} say about a wrong configuration. */
class ConfigValidationTest {
  @TempDir Path tmp;

  private Map<String, String> good() throws Exception {
    Path file = JobTestSupport.writeLines(tmp.resolve("in.txt"), List.of("a", "b"));
    return JobTestSupport.fileJob(tmp, file, JobTestSupport.RecordingTask.class);
  }

  private static void check(Map<String, String> config) {
    JobPlanner.check(JobConfig.of(config));
  }

  private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> checkFails(
      Map<String, String> config) {
    return assertThatThrownBy(() -> check(config)).isInstanceOf(ConfigException.class);
  }

  @Test
  void goodConfigurationPassesCheckAndPlan() throws Exception {
    Map<String, String> config = good();
    assertThatCode(() -> check(config)).doesNotThrowAnyException();
    assertThatCode(() -> JobPlanner.plan(JobConfig.of(config)).close())
        .doesNotThrowAnyException();
  }

  @Test
  void partitionBuffersShareTheContainersTotalByDefaultAndASetCapWins() throws Exception {
    Map<String, String> config = good();
    assertThat(partitionBytes(config, 8)).isEqualTo(4L << 20);
    assertThat(partitionBytes(config, 1000)).isEqualTo((32L << 20) / 1000);
    config.put("task.buffer.max.bytes", "1048576");
    assertThat(partitionBytes(config, 8)).isEqualTo(1L << 20);
    assertThat(partitionBytes(config, 1000)).isEqualTo((32L << 20) / 1000);
    config.put("task.buffer.max.total.bytes", "1073741824");
    assertThat(partitionBytes(config, 8)).isEqualTo(1L << 20);
  }

  /** The byte cap each of {@code partitions} buffers gets under the planned job's settings. */
  private static long partitionBytes(Map<String, String> config, int partitions) {
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    try {
      return plan.settings().partitionBytes(partitions);
    } finally {
      plan.close();
    }
  }

  @Test
  void unknownKeyIsNamedWithTheNearestKnownKey() throws Exception {
    Map<String, String> config = good();
    config.put("task.comit.ms", "100");
    checkFails(config)
        .hasMessageContaining("unknown key task.comit.ms")
        .hasMessageContaining("did you mean task.commit.ms?");
  }

  @Test
  void consumerBatchSizeTakesAutoOrAPositiveIntegerAndNamesWhatItTakes() throws Exception {
    Map<String, String> config = good();
    for (String fine : List.of("auto", " auto ", "1", "16")) {
      config.put("task.consumer.batch.size", fine);
      assertThatCode(() -> check(config)).doesNotThrowAnyException();
    }
    for (String wrong : List.of("0", "-3", "many", "1.5")) {
      config.put("task.consumer.batch.size", wrong);
      checkFails(config)
          .hasMessageContaining("task.consumer.batch.size")
          .hasMessageContaining(wrong)
          .hasMessageContaining("auto, or an integer of at least 1");
    }
  }

  @Test
  void standbyReplicasUnderTheLocalCoordinatorAreRefusedSayingWhy() throws Exception {
    Map<String, String> config = good();
    config.put("job.standby.replicas", "1");
    checkFails(config)
        .hasMessageContaining("job.standby.replicas")
        .hasMessageContaining("job.coordinator=local")
        .hasMessageContaining("no other process");
    config.put("job.standby.replicas", "-1");
    checkFails(config).hasMessageContaining("job.standby.replicas");
    config.put("job.standby.replicas", "0");
    config.put("job.rack", "eu-west-1a");
    assertThatCode(() -> check(config)).doesNotThrowAnyException();
  }

  @Test
  void aRestoreShareOutsideOneToAHundredPercentIsRefusedNamingTheKey() throws Exception {
    Map<String, String> config = good();
    config.put("job.container.restore.beside.percent", "150");
    checkFails(config).hasMessageContaining("job.container.restore.beside.percent")
        .hasMessageContaining("'150'").hasMessageContaining("from 1 to 100");
    config.put("job.container.restore.beside.percent", "0");
    checkFails(config).hasMessageContaining("job.container.restore.beside.percent");
    config.put("job.container.restore.beside.percent", "100");
    assertThatCode(() -> check(config)).doesNotThrowAnyException();
  }

  @Test
  void unknownStreamKeyIsNamedWithTheNearestStreamKey() throws Exception {
    Map<String, String> config = good();
    config.put("streams.lines.priorty", "3");
    checkFails(config)
        .hasMessageContaining("unknown key streams.lines.priorty")
        .hasMessageContaining("did you mean streams.lines.priority?");
  }

  @Test
  void unknownSystemKeyIsRejected() throws Exception {
    Map<String, String> config = good();
    config.put("systems.file.root.dir", "/tmp");
    checkFails(config).hasMessageContaining("unknown key systems.file.root.dir");
  }

  @Test
  void unknownKeyFarFromAnyKnownKeyHasNoSuggestion() throws Exception {
    Map<String, String> config = good();
    config.put("completely.different", "x");
    checkFails(config)
        .hasMessageContaining("unknown key completely.different")
        .hasMessageNotContaining("did you mean");
  }

  @Test
  void badIntegerNamesKeyValueAndWhatIsAllowed() throws Exception {
    Map<String, String> config = good();
    config.put("task.commit.ms", "soon");
    checkFails(config)
        .hasMessageContaining("task.commit.ms")
        .hasMessageContaining("'soon'")
        .hasMessageContaining("an integer");
  }

  @Test
  void integerBelowItsMinimumNamesKeyValueAndTheMinimum() throws Exception {
    Map<String, String> config = good();
    config.put("job.container.count", "0");
    checkFails(config)
        .hasMessageContaining("job.container.count")
        .hasMessageContaining("'0'")
        .hasMessageContaining("at least 1");
  }

  @Test
  void badBooleanNamesKeyValueAndWhatIsAllowed() throws Exception {
    Map<String, String> config = good();
    config.put("streams.lines.bootstrap", "yes");
    checkFails(config)
        .hasMessageContaining("streams.lines.bootstrap")
        .hasMessageContaining("'yes'")
        .hasMessageContaining("true or false");
  }

  @Test
  void badChoiceNamesKeyValueAndTheChoices() throws Exception {
    Map<String, String> config = good();
    config.put("task.error.policy", "explode");
    checkFails(config)
        .hasMessageContaining("task.error.policy")
        .hasMessageContaining("'explode'")
        .hasMessageContaining("fail | skip | dead-letter");
  }

  @Test
  void badOffsetDefaultNamesKeyValueAndTheChoices() throws Exception {
    Map<String, String> config = good();
    config.put("streams.lines.offset.default", "newest");
    checkFails(config)
        .hasMessageContaining("streams.lines.offset.default")
        .hasMessageContaining("'newest'")
        .hasMessageContaining("oldest | upcoming");
  }

  @Test
  void deadLetterPolicyWithoutAStreamNamesTheMissingKey() throws Exception {
    Map<String, String> config = good();
    config.put("task.error.policy", "dead-letter");
    checkFails(config).hasMessageContaining("task.dead.letter.stream");
  }

  @Test
  void missingJobNameIsNamed() throws Exception {
    Map<String, String> config = good();
    config.remove("job.name");
    checkFails(config).hasMessageContaining("missing required key job.name");
  }

  @Test
  void blankJobNameCountsAsMissing() throws Exception {
    Map<String, String> config = good();
    config.put("job.name", "");
    checkFails(config).hasMessageContaining("missing required key job.name");
  }

  @Test
  void missingTaskClassIsNamed() throws Exception {
    Map<String, String> config = good();
    config.remove("task.class");
    checkFails(config).hasMessageContaining("missing required key task.class");
  }

  @Test
  void missingTaskInputsIsNamed() throws Exception {
    Map<String, String> config = good();
    config.remove("task.inputs");
    checkFails(config).hasMessageContaining("missing required key task.inputs");
  }

  @Test
  void streamWithoutASystemNamesTheMissingKey() throws Exception {
    Map<String, String> config = good();
    config.put("task.inputs", "lines,clicks");
    checkFails(config)
        .hasMessageContaining("missing required key streams.clicks.system");
  }

  @Test
  void unknownSystemNamesTheFactoryKey() throws Exception {
    Map<String, String> config = good();
    config.put("streams.lines.system", "kafkaa");
    checkFails(config)
        .hasMessageContaining("kafkaa")
        .hasMessageContaining("systems.kafkaa.factory");
  }

  @Test
  void unknownSerdeNamesKeyValueAndWhatIsAllowed() throws Exception {
    Map<String, String> config = good();
    config.put("streams.lines.value.serde", "protobuf");
    checkFails(config)
        .hasMessageContaining("streams.lines.value.serde")
        .hasMessageContaining("'protobuf'")
        .hasMessageContaining("bytes, string, long, integer, json");
  }

  @Test
  void serdeClassThatIsNotASerdeIsNamed() throws Exception {
    Map<String, String> config = good();
    config.put("streams.lines.key.serde", "java.lang.String");
    checkFails(config)
        .hasMessageContaining("streams.lines.key.serde")
        .hasMessageContaining("'java.lang.String'")
        .hasMessageContaining("is not a Serde");
  }

  @Test
  void taskClassThatIsNotAStreamTaskNamesKeyAndValue() throws Exception {
    Map<String, String> config = good();
    config.put("task.class", "java.lang.String");
    checkFails(config)
        .hasMessageContaining("task.class")
        .hasMessageContaining("'java.lang.String'")
        .hasMessageContaining("implements neither io.millrace.api.StreamTask nor io.millrace.api.AsyncStreamTask");
  }

  @Test
  void taskClassNotOnTheClasspathNamesKeyAndValue() throws Exception {
    Map<String, String> config = good();
    config.put("task.class", "com.example.NoSuchTask");
    checkFails(config)
        .hasMessageContaining("task.class")
        .hasMessageContaining("'com.example.NoSuchTask'")
        .hasMessageContaining("no such class");
  }

  @Test
  void missingInputFileNamesTheStreamKeyAndThePath() throws Exception {
    Map<String, String> config = good();
    Path missing = tmp.resolve("no-such-file.txt");
    config.put("streams.lines.physical.name", missing.toString());
    // check() does not touch streams; plan() asks the system and stops with the path.
    assertThatCode(() -> check(config)).doesNotThrowAnyException();
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("streams.lines.physical.name")
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");
  }

  @Test
  void missingMemoryStreamNamesTheStream() throws Exception {
    Map<String, String> config = new LinkedHashMap<>(good());
    config.put("streams.lines.system", "memory");
    config.put("streams.lines.physical.name", JobTestSupport.unique("absent"));
    assertThatThrownBy(() -> JobPlanner.plan(JobConfig.of(config)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("input stream lines")
        .hasMessageContaining("does not exist");
  }

  @Test
  void streamBothInputAndOutputIsRejected() throws Exception {
    Map<String, String> config = good();
    config.put("task.outputs", "lines");
    checkFails(config).hasMessageContaining("lines").hasMessageContaining("both");
  }

  @Test
  void badReporterNamesKeyValueAndWhatIsAllowed() throws Exception {
    Map<String, String> config = good();
    config.put("metrics.reporters", "log,graphite");
    checkFails(config)
        .hasMessageContaining("metrics.reporters")
        .hasMessageContaining("'log,graphite'")
        .hasMessageContaining("log, jmx");
  }

  @Test
  void aPooledTaskWithMoreThanOneMessageInFlightAndStoresIsRefusedNamingTheKeysAndStores()
      throws Exception {
    Map<String, String> config = good();
    config.put("stores.counts.factory", "memory");
    config.put("job.container.thread.pool.size", "4");
    config.put("task.max.concurrency", "8");
    checkFails(config)
        .hasMessageContaining("job.container.thread.pool.size=4")
        .hasMessageContaining("task.max.concurrency=8")
        .hasMessageContaining("counts")
        .hasMessageContaining("not thread-safe");
  }

  @Test
  void storesAreAllowedInlineOrOnThePoolWithOneMessageInFlight() throws Exception {
    Map<String, String> config = good();
    config.put("stores.counts.factory", "memory");
    config.put("task.max.concurrency", "8"); // inline: the pool is off
    assertThatCode(() -> check(config)).doesNotThrowAnyException();
    config.put("job.container.thread.pool.size", "4");
    config.put("task.max.concurrency", "1");
    assertThatCode(() -> check(config)).doesNotThrowAnyException();
  }
}
