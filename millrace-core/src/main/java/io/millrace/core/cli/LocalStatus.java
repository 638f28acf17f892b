package io.millrace.core.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.millrace.api.StreamPartition;
import io.millrace.api.config.JobConfig;
import io.millrace.core.checkpoint.FileCheckpointStore;
import io.millrace.core.config.CoreKeys;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * {@code millrace status} for a job whose process runs every task itself ({@code
 * job.coordinator=local}): there is no group to ask, so it asks the running process's status
 * endpoint ({@code metrics.http.port}) and prints what it answers; where there is none, it says
 * where to look. Either way it prints the job's last file checkpoint, which a stopped job leaves.
 */
final class LocalStatus {
  /** Exit code when no process of the job answered: scripts can tell "not running". */
  static final int NOT_RUNNING = 1;
  private final JobConfig config;
  private final PrintStream out;

  private LocalStatus(JobConfig config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  /** Prints the job's status; 0 if a running process answered, {@link #NOT_RUNNING} if not. */
  static int print(JobConfig config, PrintStream out) {
    return new LocalStatus(config, out).print();
  }

  private int print() {
    String job = config.required(CoreKeys.JOB_NAME);
    int port = config.getInt(CoreKeys.HTTP_PORT, -1, -1);
    int exit = NOT_RUNNING;
    if (port < 0) {
      out.println("job " + job + " runs every task in one process (job.coordinator=local) and "
          + "serves no status: start it with metrics.http.port set (--set metrics.http.port=9400) "
          + "and its status is on http://<host>:9400/ and here, its metrics on /metrics");
    } else if (port == 0) {
      out.println("job " + job + " serves its status on a free port chosen at start "
          + "(metrics.http.port=0), which it logged (\"status page on http://...\"): open that, or "
          + "give it a fixed port for millrace status to ask");
    } else {
      exit = ask(job, port);
    }
    lastCheckpoint();
    return exit;
  }

  /** Asks the process on {@code port} for its status and prints it. */
  private int ask(String job, int port) {
    String host = config.get(CoreKeys.HTTP_HOST, "0.0.0.0");
    if (host.equals("0.0.0.0") || host.equals("::")) {
      host = "127.0.0.1"; // it listens on every address; this machine's is one of them
    }
    URI uri = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port
        + "/status");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    JsonNode status;
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
          .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
      status = response.statusCode() == 200 ? new ObjectMapper().readTree(response.body()) : null;
    } catch (ConnectException e) {
      out.println("job " + job + ": no process answers on " + uri + " (metrics.http.port="
          + port + "): it is not running on this machine");
      return NOT_RUNNING;
    } catch (HttpTimeoutException e) {
      out.println("job " + job + ": " + uri + " did not answer in time");
      return NOT_RUNNING;
    } catch (IOException e) {
      out.println("job " + job + ": cannot ask " + uri + ": " + e);
      return NOT_RUNNING;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return NOT_RUNNING;
    }
    if (status == null || !status.has("job")) {
      out.println("job " + job + ": " + uri + " is not a Millrace job's status endpoint");
      return NOT_RUNNING;
    }
    if (!status.get("job").asText().equals(job)) {
      out.println("job " + job + ": the process on " + uri + " runs job "
          + status.get("job").asText() + ", not this one");
      return NOT_RUNNING;
    }
    StatusText.print(status, uri.resolve("/").toString(), out);
    return 0;
  }

  /** The newest file checkpoint: where a restart resumes. */
  private void lastCheckpoint() {
    if (!config.get(CoreKeys.CHECKPOINT_SYSTEM, "file").equals("file")) {
      out.println("checkpoints: kept by system " + config.get(CoreKeys.CHECKPOINT_SYSTEM)
          + " (task.checkpoint.system)");
      return;
    }
    String stateDir = config.get(CoreKeys.STATE_DIR, "state/" + config.get(CoreKeys.JOB_NAME));
    Path dir = Path.of(config.get(CoreKeys.CHECKPOINT_DIR, stateDir + "/checkpoints"));
    Map<StreamPartition, Long> offsets;
    Instant written;
    try (Stream<Path> files = Files.list(dir)) {
      written = files.filter(f -> f.getFileName().toString().endsWith(".checkpoint"))
          .map(LocalStatus::modified).max(Instant::compareTo).orElse(null);
    } catch (IOException e) {
      written = null;
    }
    if (written == null) {
      out.println("checkpoint: none yet in " + dir);
      return;
    }
    try (FileCheckpointStore store = new FileCheckpointStore(dir)) {
      offsets = new TreeMap<>(java.util.Comparator.comparing(StreamPartition::toString));
      offsets.putAll(store.read());
    } catch (RuntimeException e) {
      out.println("checkpoint: cannot be read: " + e.getMessage());
      return;
    }
    out.println("checkpoint: " + dir + ", written " + written + "; a restart resumes after:");
    offsets.forEach((p, offset) -> out.println("  " + p.stream() + "/" + p.partition()
        + "  offset " + offset));
  }

  private static Instant modified(Path file) {
    try {
      return Files.getLastModifiedTime(file).toInstant();
    } catch (IOException e) {
      return Instant.EPOCH;
    }
  }
}
