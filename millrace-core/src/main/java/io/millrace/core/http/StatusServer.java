package io.millrace.core.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.millrace.api.config.ConfigException;
import io.millrace.core.loop.PartitionState;
import io.millrace.core.loop.RunLoop;
import io.millrace.core.metrics.DefaultMetricsRegistry;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's HTTP endpoints ({@code metrics.http.port}): {@code /metrics} in Prometheus' text
 * format (the JVM's metrics and Millrace's, through the Prometheus Java client), {@code /status}
 * as JSON and {@code /} as a page that draws it. It runs on two daemon threads of its own (one
 * answers requests, one samples the partitions each second); the loop only keeps the metrics it
 * keeps anyway.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * The JVM's metrics, registered once per process: they hang listeners on the JVM's beans,
   * which would keep a stopped job's registry, and through its gauges the whole job, alive if
   * each server registered its own.
   */
  private static final PrometheusRegistry JVM_METRICS = jvmMetrics();
  private final HttpServer server;
  private final ScheduledExecutorService sampling;
  private final ExecutorService requests;
  private final StatusSampler sampler;
  /** Containers: their ids are 0 up to this. */
  private final int containers;
  private final DefaultMetricsRegistry metrics;
  private final String job;
  private final Path storesDir;
  private final long startedMillis = System.currentTimeMillis();

  private StatusServer(HttpServer server, List<RunLoop> loops, MessageCounts counts,
      DefaultMetricsRegistry metrics, String job, Path storesDir) {
    this.server = server;
    this.metrics = metrics;
    this.job = job;
    this.storesDir = storesDir;
    this.sampler = new StatusSampler(loops, counts);
    this.containers = loops.size();
    this.sampling = Executors.newSingleThreadScheduledExecutor(r -> daemon(r,
        "millrace-" + job + "-status-sampler"));
    this.requests = Executors.newSingleThreadExecutor(r -> daemon(r, "millrace-" + job
        + "-http"));
  }

  /**
   * Starts serving on {@code host:port} (port 0: any free one).
   *
   * @param loops the job's container loops, by container id
   * @param counts the consumers that count messages where offsets do not (files)
   * @param storesDir where persistent stores keep their files (their sizes are shown), or null
   * @throws ConfigException naming the key and the address if it cannot be bound (taken, say):
   *     the configuration must name another port
   */
  public static StatusServer start(String host, int port, List<RunLoop> loops,
      MessageCounts counts, DefaultMetricsRegistry metrics, String job, Path storesDir) {
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      throw new ConfigException("cannot serve metrics.http.port=" + port + " on " + host
          + ": " + e.getMessage() + " (another process may hold it: set another port, or 0 for "
          + "any free one)");
    }
    StatusServer status = new StatusServer(http, loops, counts, metrics, job, storesDir);
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register((MultiCollector) JVM_METRICS::scrape);
    registry.register(new PrometheusMetrics(metrics, job, status.sampler::live));
    http.createContext("/metrics", new MetricsHandler(registry));
    http.createContext("/status", exchange -> status.respond(exchange, "application/json",
        JSON.writeValueAsBytes(status.status())));
    http.createContext("/", exchange -> {
      if (!exchange.getRequestURI().getPath().equals("/")) {
        status.respond(exchange, 404, "text/plain", "not found\n".getBytes());
        return;
      }
      status.respond(exchange, "text/html; charset=utf-8", page());
    });
    http.setExecutor(status.requests);
    http.start();
    status.sampler.sample(System.currentTimeMillis());
    status.sampling.scheduleAtFixedRate(() -> status.sampler.sample(System.currentTimeMillis()),
        1, 1, TimeUnit.SECONDS);
    LOG.info("job {}: metrics on http://{}:{}/metrics, status page on http://{}:{}/", job,
        host, status.port(), host, status.port());
    return status;
  }

  private static PrometheusRegistry jvmMetrics() {
    PrometheusRegistry jvm = new PrometheusRegistry();
    JvmMetrics.builder().register(jvm);
    return jvm;
  }

  /** The port it listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** What {@code /status} answers: the job, its totals, containers, partitions and stores. */
  Map<String, Object> status() {
    Map<String, Map<String, Long>> snapshot = metrics.snapshot();
    Map<String, Object> out = new LinkedHashMap<>();
    long now = System.currentTimeMillis();
    out.put("job", job);
    out.put("now", now);
    out.put("startedAt", startedMillis);
    long processed = 0;
    long skipped = 0;
    long deadLettered = 0;
    long commits = 0;
    List<Map<String, Object>> containers = new ArrayList<>();
    Map<Integer, List<Map<String, Object>>> partitionsByContainer = new TreeMap<>();
    for (StatusSampler.Current h : sampler.current()) {
      PartitionState p = h.partition();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("task", p.taskNumber());
      row.put("stream", p.id().stream());
      row.put("partition", p.id().partition());
      PartitionReading reading = h.reading();
      row.put("offset", p.lastOffset());
      row.put("lag", reading.lag());
      row.put("lagEstimated", reading.lagEstimated());
      row.put("buffered", p.buffered());
      row.put("progress", reading.progress() < 0 ? null : reading.progress());
      row.put("secondsLeft", h.secondsLeft() < 0 ? null : h.secondsLeft());
      double[] rates = h.rates();
      row.put("rate", rates.length == 0 ? 0 : rates[rates.length - 1]);
      row.put("rates", rates);
      row.put("lags", h.lags());
      partitionsByContainer.computeIfAbsent(h.container(), c -> new ArrayList<>()).add(row);
    }
    for (int id = 0; id < this.containers; id++) {
      Map<String, Long> m = snapshot.getOrDefault("container-" + id, Map.of());
      long containerProcessed = m.getOrDefault("messages-processed", 0L);
      long containerSkipped = m.getOrDefault("messages-skipped", 0L);
      long containerDeadLettered = m.getOrDefault("messages-dead-lettered", 0L);
      long containerCommits = m.getOrDefault("commits", 0L);
      long lastCommit = m.getOrDefault("last-commit-epoch-ms", 0L);
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("id", id);
      c.put("processed", containerProcessed);
      c.put("skipped", containerSkipped);
      c.put("deadLettered", containerDeadLettered);
      c.put("commits", containerCommits);
      c.put("lastCommit", lastCommit == 0 ? null : lastCommit);
      c.put("tasks", m.getOrDefault("tasks", 0L));
      c.put("partitions", partitionsByContainer.getOrDefault(id, List.of()));
      containers.add(c);
      processed += containerProcessed;
      skipped += containerSkipped;
      deadLettered += containerDeadLettered;
      commits += containerCommits;
    }
    out.put("totals", Map.of("processed", processed, "skipped", skipped, "deadLettered",
        deadLettered, "commits", commits));
    out.put("containers", containers);
    out.put("stores", stores());
    return out;
  }

  /** Each persistent store's bytes on disk (all its tasks' files in this process). */
  private List<Map<String, Object>> stores() {
    List<Map<String, Object>> out = new ArrayList<>();
    if (storesDir == null || !Files.isDirectory(storesDir)) {
      return out;
    }
    try (Stream<Path> names = Files.list(storesDir)) {
      for (Path dir : names.filter(Files::isDirectory).sorted().toList()) {
        long bytes;
        try (Stream<Path> files = Files.walk(dir)) {
          bytes = files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
        out.add(Map.of("name", dir.getFileName().toString(), "bytes", bytes));
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("cannot size the stores under {}", storesDir, e); // files come and go
    }
    return out;
  }

  private static byte[] page() throws IOException {
    try (InputStream in = StatusServer.class.getResourceAsStream("status.html")) {
      if (in == null) {
        throw new IOException("status.html is missing from the Millrace jar");
      }
      return in.readAllBytes();
    }
  }

  private void respond(HttpExchange exchange, String type, byte[] body) throws IOException {
    respond(exchange, 200, type, body);
  }

  private void respond(HttpExchange exchange, int code, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(code, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    sampling.shutdownNow();
    server.stop(0);
    requests.shutdownNow();
  }
}
