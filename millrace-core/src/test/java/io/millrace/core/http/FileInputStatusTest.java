package io.millrace.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.api.Collector;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.loop.RunLoop;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file input on the status page and in the metrics: its offsets are byte positions, yet its
 * rate counts messages, and it shows its lag and how much of it is done. The task holds the loop
 * at the lines a test names, so what the page reads is known exactly; the sampler is given the
 * times, so the rates need no clock. Each test has its own gate: nothing one leaves behind reaches
 * another.
 */
class FileInputStatusTest {
  static final int LINES = 1000;
  /** Every line is 100 bytes with its end: a rate in bytes would be 100 times the one in lines. */
  static final int LINE_BYTES = 100;
  @TempDir Path tmp;
  private LocalRunner runner;
  private Gate gate;

  /** Where the task stops (its line numbers, from 1) and the test's hold on it there. */
  record Gate(Set<Integer> lines, Semaphore held, Semaphore go) {
    Gate(Integer... lines) {
      this(Set.of(lines), new Semaphore(0), new Semaphore(0));
    }

    /** Waits until the task is at its next line to stop at. */
    void awaitHeld() throws InterruptedException {
      assertThat(held.tryAcquire(60, TimeUnit.SECONDS)).as("the task reached its line").isTrue();
    }
  }

  /** The gate of the test running now: a task takes it when it is made. */
  static volatile Gate current;

  /** Stops at the lines of its test's gate until the test lets it go on. */
  public static class HoldingTask implements StreamTask {
    private final Gate gate = current;
    private int seen;

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      seen++;
      if (gate.lines().contains(seen)) {
        gate.held().release();
        gate.go().acquireUninterruptibly();
      }
    }
  }

  private LocalRunner start(Gate gate, Map<String, String> more) throws Exception {
    this.gate = gate;
    current = gate;
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < LINES; i++) {
      text.append(String.format("line %05d %s\n", i, "x".repeat(LINE_BYTES - 12)));
    }
    Path input = tmp.resolve("lines.txt");
    Files.writeString(input, text);
    assertThat(Files.size(input)).isEqualTo((long) LINES * LINE_BYTES);
    Map<String, String> config = new HashMap<>(Map.of(
        "job.name", "file-status",
        "task.class", HoldingTask.class.getName(),
        "task.inputs", "lines",
        "streams.lines.system", "file",
        "streams.lines.physical.name", input.toString(),
        "job.state.dir", tmp.resolve("state").toString()));
    config.putAll(more);
    runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    runner.start();
    return runner;
  }

  private LocalRunner startServing(Gate gate) throws Exception {
    return start(gate, Map.of("metrics.http.port", "0", "metrics.http.host", "127.0.0.1"));
  }

  /** Lets the task through every line it would still stop at, and waits for the job's end. */
  @AfterEach
  void finishJob() throws Exception {
    if (runner != null) {
      gate.go().release(LINES);
      assertThat(runner.await(60, TimeUnit.SECONDS)).as("the job ended").isTrue();
    }
  }

  private StatusSampler sampler() {
    List<RunLoop> loops = new ArrayList<>();
    runner.containers().forEach(c -> loops.add(c.loop()));
    return new StatusSampler(loops, runner.messageCounts());
  }

  @Test
  void theRateOfAFileInputCountsLinesNotBytes() throws Exception {
    Gate gate = new Gate(1, LINES);
    start(gate, Map.of());
    StatusSampler sampler = sampler();

    gate.awaitHeld(); // the first line is in the task
    sampler.sample(10_000);
    gate.go().release();
    gate.awaitHeld(); // the last line is in the task: 999 more delivered
    sampler.sample(11_000);

    StatusSampler.Current partition = sampler.current().get(0);
    assertThat(partition.rates()).as("lines a second, not %d bytes a second",
        (LINES - 1) * LINE_BYTES).containsExactly(LINES - 1.0);
    assertThat(partition.reading().lag()).isZero();
    assertThat(partition.reading().lagEstimated()).as("nothing left is exact").isFalse();
    assertThat(partition.reading().progress()).isEqualTo(1.0);
    assertThat(partition.secondsLeft()).isZero();
  }

  @Test
  void theTimeLeftIsTheLagAtTheLastSecondsPace() throws Exception {
    Gate gate = new Gate(1, 501);
    start(gate, Map.of());
    StatusSampler sampler = sampler();

    gate.awaitHeld();
    sampler.sample(10_000);
    assertThat(sampler.current().get(0).secondsLeft()).as("no pace yet").isEqualTo(-1);
    gate.go().release();
    gate.awaitHeld(); // line 501: 500 lines in the second sampled, 499 left
    sampler.sample(11_000);

    StatusSampler.Current partition = sampler.current().get(0);
    assertThat(partition.reading().lag()).isEqualTo(LINES - 501);
    assertThat(partition.secondsLeft()).isEqualTo((LINES - 501) / 500.0);
  }

  @Test
  void aFileInputShowsItsLagAsAnEstimateAndItsProgressOnTheStatusPageAndInTheMetrics()
      throws Exception {
    Gate gate = new Gate(1);
    startServing(gate);
    gate.awaitHeld(); // the first line is in the task, the other 999 read and buffered
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + runner.httpPort();

    JsonNode row = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(
        URI.create(base + "/status")).build(), HttpResponse.BodyHandlers.ofString()).body())
        .get("containers").get(0).get("partitions").get(0);
    assertThat(row.get("lag").asLong()).isEqualTo(LINES - 1);
    assertThat(row.get("lagEstimated").asBoolean()).as("bytes left at the mean line length")
        .isTrue();
    assertThat(row.get("progress").asDouble()).isEqualTo(1.0 / LINES);

    String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(metrics.lines().filter(l -> l.startsWith("millrace_partition_lag{")))
        .singleElement().satisfies(l -> assertThat(l).contains("stream=\"lines\"")
            .endsWith(" " + (LINES - 1) + ".0"));
    assertThat(metrics.lines().filter(l -> l.startsWith("millrace_partition_progress_ratio{")))
        .singleElement().satisfies(l -> assertThat(Double.parseDouble(
            l.substring(l.lastIndexOf(' ') + 1))).isEqualTo(1.0 / LINES));
  }

  @Test
  void jmxShowsAFileInputsLagAsTheMetricsEndpointDoes() throws Exception {
    Gate gate = new Gate(1);
    start(gate, Map.of("metrics.reporters", "jmx"));
    gate.awaitHeld();

    ObjectName task = new ObjectName("io.millrace:job=\"file-status\",group=\"task-0\"");
    assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(task, "lines-0.lag"))
        .as("the estimate, not -1").isEqualTo((long) LINES - 1);
  }
}
