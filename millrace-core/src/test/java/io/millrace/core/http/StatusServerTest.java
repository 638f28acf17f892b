package io.millrace.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamTask;
import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code metrics.http.port}: /metrics, /status and the page, read while a job runs. */
class StatusServerTest {
  private static final Pattern SAMPLE = Pattern.compile("^([a-z_:][a-z0-9_:]*)(\\{(.*)\\})? (\\S+)$");
  @TempDir Path tmp;
  private final HttpClient http = HttpClient.newHttpClient();
  private String name;
  private String input;
  private LocalRunner runner;

  /** Does nothing with its messages: the figures are the loop's own. */
  public static class QuietTask implements StreamTask {
    @Override
    public void process(Envelope e, Collector out, TaskCoordinator coordinator) {}
  }

  /** A job reading this test's memory input, with the server on a free loopback port. */
  private Map<String, String> config(String job, String stateDir) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", job);
    config.put("task.class", QuietTask.class.getName());
    config.put("task.inputs", "in");
    config.put("streams.in.system", "memory");
    config.put("streams.in.physical.name", input);
    config.put("job.state.dir", tmp.resolve(stateDir).toString());
    config.put("metrics.http.port", "0");
    config.put("metrics.http.host", "127.0.0.1");
    return config;
  }

  @BeforeEach
  void startJob() throws Exception {
    name = "status-" + UUID.randomUUID().toString().substring(0, 8);
    input = name + "-in";
    MemoryStream stream = MemoryStreams.create(input, 2); // never sealed: the job keeps running
    for (int i = 0; i < 500; i++) {
      stream.append(0, "k" + i, "v");
      stream.append(1, "k" + i, "v");
    }
    Map<String, String> config = config(name, "state");
    config.put("task.commit.ms", "100");
    runner = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    runner.start();
    Await.until(Duration.ofSeconds(30), "1000 messages processed",
        () -> runner.processed() >= 1000);
    assertThat(runner.processed()).isEqualTo(1000);
  }

  @AfterEach
  void stopJob() throws Exception {
    runner.requestStop();
    assertThat(runner.await(30, TimeUnit.SECONDS)).isTrue();
    MemoryStreams.drop(input);
  }

  private String get(String path) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + runner.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path).isEqualTo(200);
    return response.body();
  }

  /** A scraped series: its name, labels and value. */
  private record Sample(String name, Map<String, String> labels, double value) {}

  private List<Sample> scrape() throws Exception {
    List<Sample> samples = new ArrayList<>();
    for (String line : get("/metrics").split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      assertThat(m.matches()).as("a sample line in Prometheus' text format: %s", line).isTrue();
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(3) != null) {
        for (String pair : m.group(3).split(",")) {
          int eq = pair.indexOf('=');
          labels.put(pair.substring(0, eq), pair.substring(eq + 2, pair.length() - 1));
        }
      }
      samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
    }
    return samples;
  }

  @Test
  void metricsAreScrapedInPrometheusFormatWithTheirNamesAndLabels() throws Exception {
    List<Sample> samples = scrape();
    assertThat(samples).anySatisfy(s -> {
      assertThat(s.name()).isEqualTo("millrace_messages_processed_total");
      assertThat(s.labels()).containsEntry("job", name).containsEntry("container", "0");
      assertThat(s.value()).isEqualTo(1000);
    });
    assertThat(samples).filteredOn(s -> s.name().equals("millrace_partition_lag"))
        .extracting(s -> s.labels().get("stream") + "/" + s.labels().get("partition") + " task "
            + s.labels().get("task"))
        .containsExactlyInAnyOrder("in/0 task 0", "in/1 task 1");
    assertThat(samples).anyMatch(s -> s.name().equals("millrace_commits_total"));
    assertThat(samples).anyMatch(s -> s.name().equals("millrace_last_commit_timestamp_seconds"));
    assertThat(samples).as("the JVM's own").anyMatch(s -> s.name().startsWith("jvm_memory"));
    assertThat(samples).allMatch(s -> !s.name().startsWith("millrace_")
        || s.name().matches("millrace_[a-z0-9_]+"));
  }

  @Test
  void statusIsJsonWithTheJobItsContainersAndPartitions() throws Exception {
    JsonNode status = new ObjectMapper().readTree(get("/status"));
    assertThat(status.get("job").asText()).isEqualTo(name);
    assertThat(status.get("totals").get("processed").asLong()).isEqualTo(1000);
    JsonNode partitions = status.get("containers").get(0).get("partitions");
    assertThat(partitions).hasSize(2);
    assertThat(partitions.get(0).get("offset").asLong()).isEqualTo(499);
    assertThat(partitions.get(0).get("stream").asText()).isEqualTo("in");
    assertThat(partitions.get(0).get("lags").isArray()).isTrue();
  }

  @Test
  void thePageShowsTheJobsFiguresInAHeadlessBrowser() throws Exception {
    Path chromium = Path.of("/usr/bin/chromium");
    Assumptions.assumeTrue(Files.isExecutable(chromium), "chromium is not installed, so the "
        + "status page was not rendered (install it: apt-get install chromium)");
    // Two samples a second apart, so the charts have a line to draw.
    Await.until(Duration.ofSeconds(30), "a second sample", () -> new ObjectMapper()
        .readTree(get("/status")).get("containers").get(0).get("partitions").get(0)
        .get("lags").size() >= 2);
    Process browser = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox",
        "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + Files.createDirectories(tmp.resolve("chromium")),
        "--virtual-time-budget=5000", "--dump-dom",
        "http://127.0.0.1:" + runner.httpPort() + "/")
        .redirectError(tmp.resolve("chromium.log").toFile()).start();
    String dom = new String(browser.getInputStream().readAllBytes());
    assertThat(browser.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(dom).contains("Millrace job " + name);
    assertThat(dom).contains("<b id=\"processed\">1,000</b>");
    assertThat(Pattern.compile("<tr class=\"partition\">.*?<td class=\"offset\">499</td>")
        .matcher(dom).find()).as("a partition row with its offset").isTrue();
    Matcher chart = Pattern.compile("class=\"chart lag\"[^>]*data-points=\"(\\d+)\"[^>]*>"
        + "<polyline points=\"([^\"]+)\"").matcher(dom);
    assertThat(chart.find()).as("a lag chart in: %s", dom).isTrue();
    assertThat(Integer.parseInt(chart.group(1))).isGreaterThanOrEqualTo(2);
    assertThat(chart.group(2).split(" ")).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void aPortAlreadyTakenIsAnErrorNamingTheKey() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Map<String, String> config = config(name + "-second", "state2");
      config.put("metrics.http.port", Integer.toString(taken.getLocalPort()));
      LocalRunner second = new LocalRunner(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
      try {
        assertThatThrownBy(second::start).hasMessageContaining("metrics.http.port="
            + taken.getLocalPort()).hasMessageContaining("127.0.0.1");
      } finally {
        second.plan().close();
      }
    }
  }

  @Test
  void theStatusCommandPrintsWhatTheRunningProcessAnswers() throws Exception {
    Path file = tmp.resolve("job.properties");
    StringBuilder text = new StringBuilder();
    config(name, "state").forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, text);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();

    int exit = io.millrace.core.cli.Main.run(new String[] {"status", file.toString(),
        "--set", "metrics.http.port=" + runner.httpPort()}, new java.io.PrintStream(out, true),
        new java.io.PrintStream(err, true));

    String printed = out.toString();
    assertThat(exit).as("%s%s", printed, err).isZero();
    assertThat(printed).contains("job " + name + ": running for ")
        .contains("1,000 messages processed")
        .contains("container 0: 2 task(s), 1,000 processed")
        .contains("task 0  in/0  offset 499  lag 0")
        .contains("task 1  in/1  offset 499  lag 0");
  }

  @Test
  void anotherPathIsNotFound() throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + runner.httpPort() + "/nope")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(404);
  }

  @Test
  void aStoppedJobWithItsServerIsLeftForTheGarbageCollector() throws Exception {
    // The JVM's metrics hang listeners on the JVM's beans: registered per job, they kept every
    // stopped job (its loops, buffers and input) alive, and a benchmark ran out of memory.
    java.lang.ref.WeakReference<Object> stopped = startAndStopAnother();
    Await.until(Duration.ofSeconds(30), "the stopped job collected", () -> {
      System.gc();
      return stopped.get() == null;
    });
  }

  private java.lang.ref.WeakReference<Object> startAndStopAnother() throws Exception {
    LocalRunner other = new LocalRunner(JobPlanner.plan(JobConfig.of(config(name + "-other",
        "state3"))), Clock.SYSTEM);
    other.start();
    assertThat(scrapeOf(other.httpPort())).contains("millrace_");
    other.requestStop();
    assertThat(other.await(30, TimeUnit.SECONDS)).isTrue();
    return new java.lang.ref.WeakReference<>(other.plan().metrics());
  }

  private String scrapeOf(int port) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
        + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
  }
}
