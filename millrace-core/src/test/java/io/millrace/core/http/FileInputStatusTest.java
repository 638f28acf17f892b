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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file input on the status page and in the metrics: its offsets are byte positions, yet its
 * rate counts messages, and it shows its lag and how much of it is done. The task holds the loop
 * at its first and last line, so what the page reads is known exactly; the sampler is given the
 * times, so the rates need no clock.
 */
class FileInputStatusTest {
  static final int LINES = 1000;
  /** Every line is 100 bytes with its end: a rate in bytes would be 100 times the one in lines. */
  static final int LINE_BYTES = 100;
  @TempDir Path tmp;

  /** Stops at its first and its last line until the test lets it go on. */
  public static class HoldingTask implements StreamTask {
    static final Semaphore HELD = new Semaphore(0);
    static final Semaphore GO = new Semaphore(0);
    private int seen;

    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {
      seen++;
      if (seen == 1 || seen == LINES) {
        HELD.release();
        GO.acquireUninterruptibly();
      }
    }
  }

  private LocalRunner start() throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < LINES; i++) {
      text.append(String.format("line %05d %s\n", i, "x".repeat(LINE_BYTES - 12)));
    }
    Path input = tmp.resolve("lines.txt");
    Files.writeString(input, text);
    assertThat(Files.size(input)).isEqualTo((long) LINES * LINE_BYTES);
    LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(Map.of(
        "job.name", "file-status",
        "task.class", HoldingTask.class.getName(),
        "task.inputs", "lines",
        "streams.lines.system", "file",
        "streams.lines.physical.name", input.toString(),
        "job.state.dir", tmp.resolve("state").toString(),
        "metrics.http.port", "0",
        "metrics.http.host", "127.0.0.1"))), Clock.SYSTEM);
    runner.start();
    return runner;
  }

  private static void awaitHeld() throws InterruptedException {
    assertThat(HoldingTask.HELD.tryAcquire(60, TimeUnit.SECONDS)).as("the task reached its line")
        .isTrue();
  }

  @Test
  void theRateOfAFileInputCountsLinesNotBytes() throws Exception {
    LocalRunner runner = start();
    try {
      List<RunLoop> loops = new ArrayList<>();
      runner.containers().forEach(c -> loops.add(c.loop()));
      StatusSampler sampler = new StatusSampler(loops, runner.messageCounts());

      awaitHeld(); // the first line is in the task
      sampler.sample(10_000);
      HoldingTask.GO.release();
      awaitHeld(); // the last line is in the task: 999 more delivered
      sampler.sample(11_000);

      StatusSampler.Current partition = sampler.current().get(0);
      assertThat(partition.rates()).as("lines a second, not %d bytes a second",
          (LINES - 1) * LINE_BYTES).containsExactly(LINES - 1.0);
      assertThat(partition.reading().lag()).isZero();
      assertThat(partition.reading().progress()).isEqualTo(1.0);
    } finally {
      HoldingTask.GO.release();
      runner.await(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFileInputShowsItsLagAndProgressOnTheStatusPageAndInTheMetrics() throws Exception {
    LocalRunner runner = start();
    try {
      awaitHeld(); // the first line is in the task, the other 999 read and buffered
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + runner.httpPort();

      JsonNode row = new ObjectMapper().readTree(http.send(HttpRequest.newBuilder(
          URI.create(base + "/status")).build(), HttpResponse.BodyHandlers.ofString()).body())
          .get("containers").get(0).get("partitions").get(0);
      assertThat(row.get("lag").asLong()).isEqualTo(LINES - 1);
      assertThat(row.get("progress").asDouble()).isEqualTo(1.0 / LINES);

      String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(metrics.lines().filter(l -> l.startsWith("millrace_partition_lag{")))
          .singleElement().satisfies(l -> assertThat(l).contains("stream=\"lines\"")
              .endsWith(" " + (LINES - 1) + ".0"));
      assertThat(metrics.lines().filter(l -> l.startsWith("millrace_partition_progress_ratio{")))
          .singleElement().satisfies(l -> assertThat(Double.parseDouble(
              l.substring(l.lastIndexOf(' ') + 1))).isEqualTo(1.0 / LINES));
    } finally {
      HoldingTask.GO.release(2);
      runner.await(60, TimeUnit.SECONDS);
    }
  }
}
