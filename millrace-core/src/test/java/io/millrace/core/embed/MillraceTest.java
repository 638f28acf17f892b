package io.millrace.core.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.api.config.ConfigException;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import io.millrace.core.testing.LineTasks.ExplodingTask;
import io.millrace.core.testing.LineTasks.UpperCaseTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Running a job from the user's own code: start, wait, stop, and how a failure is reported. */
class MillraceTest {
  @TempDir Path tmp;

  private Properties fileJob(Class<?> task) throws Exception {
    Path input = tmp.resolve("in.txt");
    Files.writeString(input, "one\ntwo\nboom\nthree\n");
    Properties p = new Properties();
    p.setProperty("job.name", "embedded");
    p.setProperty("task.class", task.getName());
    p.setProperty("task.inputs", "lines");
    p.setProperty("task.outputs", "out");
    p.setProperty("streams.lines.system", "file");
    p.setProperty("streams.lines.physical.name", input.toString());
    p.setProperty("streams.out.system", "file");
    p.setProperty("streams.out.physical.name", tmp.resolve("out").toString());
    p.setProperty("job.state.dir", tmp.resolve("state").toString());
    return p;
  }

  private java.util.List<String> output() throws Exception {
    return Files.readAllLines(tmp.resolve("out/part-00000"));
  }

  @Test
  void aMissingInputOfAPropertiesFileIsNamedAsWrittenWithTheFolderItIsRelativeTo()
      throws Exception {
    Path file = Files.createDirectories(tmp.resolve("jobs")).resolve("job.properties");
    Properties p = fileJob(UpperCaseTask.class);
    p.setProperty("streams.lines.physical.name", "../data/missing.txt");
    try (var writer = Files.newBufferedWriter(file)) {
      p.store(writer, null);
    }

    assertThatThrownBy(() -> Millrace.start(file)).isInstanceOf(ConfigException.class)
        .hasMessageContaining(tmp.resolve("data/missing.txt") + " does not exist")
        .hasMessageContaining("(streams.lines.physical.name=../data/missing.txt in " + file
            + ", relative to its folder " + tmp.resolve("jobs") + ")");
  }

  @Test
  void aJobFromAPropertiesFileRunsToTheEndOfItsInput() throws Exception {
    Path file = tmp.resolve("job.properties");
    try (var writer = Files.newBufferedWriter(file)) {
      fileJob(UpperCaseTask.class).store(writer, null);
    }
    try (RunningJob job = Millrace.start(file)) {
      job.join();
      assertThat(job.isDone()).isTrue();
      assertThat(job.failure()).isEmpty();
      assertThat(job.processed()).isEqualTo(4);
      assertThat(job.name()).isEqualTo("embedded");
    }
    assertThat(output()).containsExactly("ONE", "TWO", "BOOM", "THREE");
  }

  @Test
  void aBuiltJobRunsLikeTheSameKeysFromAFile() throws Exception {
    Path input = tmp.resolve("in.txt");
    Files.writeString(input, "a\nb\n");
    JobBuilder builder = Millrace.job("built")
        .task(UpperCaseTask.class)
        .input("lines", "file", input.toString())
        .output("out", "file", tmp.resolve("out").toString())
        .set("job.state.dir", tmp.resolve("state").toString());
    assertThat(builder.config()).containsEntry("task.inputs", "lines")
        .containsEntry("streams.lines.system", "file")
        .containsEntry("task.class", UpperCaseTask.class.getName());

    try (RunningJob job = builder.start()) {
      job.join();
    }
    assertThat(output()).containsExactly("A", "B");
  }

  @Test
  void aFailedJobIsReportedByJoinWithItsCause() throws Exception {
    try (RunningJob job = Millrace.start(fileJob(ExplodingTask.class))) {
      assertThatThrownBy(job::join).isInstanceOf(JobFailedException.class)
          .hasMessageContaining("job embedded failed").hasMessageContaining("exploded")
          .satisfies(e -> assertThat(((JobFailedException) e).jobName()).isEqualTo("embedded"))
          .cause().isNotNull();
      assertThat(job.failure()).isPresent();
      assertThat(job.isDone()).isTrue();
    }
  }

  @Test
  void stopCommitsAndEndsAJobWhoseInputNeverEnds() throws Exception {
    String name = "embedded-" + UUID.randomUUID();
    MemoryStream stream = MemoryStreams.create(name, 1); // never sealed: the job waits for more
    try {
      for (int i = 0; i < 3; i++) {
        stream.append(0, "k", "v" + i);
      }
      RunningJob job = Millrace.start(Map.of(
          "job.name", "endless",
          "task.class", ExplodingTask.class.getName(),
          "task.inputs", "in",
          "streams.in.system", "memory",
          "streams.in.physical.name", name,
          "job.state.dir", tmp.resolve("state").toString()));
      Await.until(Duration.ofSeconds(30), "3 messages processed", () -> job.processed() >= 3);
      assertThat(job.processed()).isEqualTo(3);
      assertThat(job.isDone()).as("still waiting for input").isFalse();

      job.stop();
      assertThat(job.isDone()).isTrue();
      assertThat(job.failure()).isEmpty();
      job.close(); // a second stop is harmless
      assertThat(job.await(Duration.ZERO)).isTrue();
    } finally {
      MemoryStreams.drop(name);
    }
  }

  @Test
  void aBadConfigurationThrowsNamingTheKeyBeforeAnythingRuns() throws Exception {
    Properties p = fileJob(UpperCaseTask.class);
    p.setProperty("job.container.count", "zero");
    assertThatThrownBy(() -> Millrace.start(p)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("job.container.count").hasMessageContaining("zero");
    assertThat(tmp.resolve("out")).doesNotExist();
  }

  @Test
  void aJobThatCannotStartThrowsNamingWhy() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      Properties p = fileJob(UpperCaseTask.class);
      p.setProperty("metrics.http.port", Integer.toString(taken.getLocalPort()));
      p.setProperty("metrics.http.host", "127.0.0.1");
      assertThatThrownBy(() -> Millrace.start(p)).hasMessageContaining("metrics.http.port="
          + taken.getLocalPort());
    }
  }

  @Test
  void aJobThatCannotStartLeavesNoReporterBehind() throws Exception {
    javax.management.MBeanServer jmx = java.lang.management.ManagementFactory
        .getPlatformMBeanServer();
    javax.management.ObjectName ours = new javax.management.ObjectName(
        "io.millrace:job=" + javax.management.ObjectName.quote("cannot-start") + ",*");
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      Properties p = fileJob(UpperCaseTask.class);
      p.setProperty("job.name", "cannot-start");
      p.setProperty("metrics.reporters", "log,jmx");
      p.setProperty("metrics.http.port", Integer.toString(taken.getLocalPort()));
      p.setProperty("metrics.http.host", "127.0.0.1");
      assertThatThrownBy(() -> Millrace.start(p)).hasMessageContaining("metrics.http.port");
    }
    assertThat(jmx.queryNames(ours, null)).as("the job's MBeans").isEmpty();
    Await.until(Duration.ofSeconds(10), "the log reporter's thread to end",
        () -> Thread.getAllStackTraces().keySet().stream()
            .noneMatch(t -> t.getName().equals("millrace-log-reporter") && t.isAlive()));
  }
}
