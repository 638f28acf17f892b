package io.millrace.bench.support;

import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.kafka.dev.DevBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What the end-to-end benchmarks share: timing a bounded job, starting a broker. */
public final class BenchJobs {
  private BenchJobs() {}

  /**
   * Plans a bounded job (which fills preloaded inputs, untimed), then times it from the
   * containers' start to their end of stream (final commit included).
   *
   * @return the nanoseconds it ran, and the messages the runner counts as processed
   */
  public static long[] timeToEnd(Map<String, String> config) throws Throwable {
    return timeToEnd(config, 0);
  }

  /**
   * As {@link #timeToEnd(Map)}, with a collection between planning, which fills preloaded
   * inputs, and the start: the input is then in the old generation, as Samza's benchmarks load
   * theirs and collect before their clock. Without it, the first young collection of a task that
   * allocates copies the whole preloaded input inside the timed interval (~100 ms for 10M
   * messages here), which a task that allocates nothing never pays.
   */
  public static long[] timeToEndCollected(Map<String, String> config) throws Throwable {
    io.millrace.core.job.JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    System.gc();
    LocalRunner runner = LocalRunner.start(plan, Clock.SYSTEM);
    long start = runner.startNanos();
    runner.await();
    long elapsed = System.nanoTime() - start;
    if (runner.failure() != null) {
      throw runner.failure();
    }
    return new long[] {elapsed, runner.processed()};
  }

  /**
   * As {@link #timeToEnd(Map)}, with a scraper fetching {@code /metrics} and {@code /status}
   * from the job's {@code metrics.http.port} every {@code scrapeMs} while it runs, as Prometheus
   * and an open status page would (0: no scraper). Timed from the containers' start, after the
   * server's: what is compared is the loop with and without scrapes, not the server's start-up.
   */
  public static long[] timeToEnd(Map<String, String> config, long scrapeMs) throws Throwable {
    LocalRunner runner = LocalRunner.start(JobPlanner.plan(JobConfig.of(config)), Clock.SYSTEM);
    long start = runner.startNanos();
    Thread scraper = scrapeMs > 0 ? scraper(runner, scrapeMs) : null;
    runner.await();
    long elapsed = System.nanoTime() - start;
    if (scraper != null) {
      scraper.interrupt();
    }
    if (runner.failure() != null) {
      throw runner.failure();
    }
    return new long[] {elapsed, runner.processed()};
  }

  private static Thread scraper(LocalRunner runner, long scrapeMs) {
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + runner.httpPort();
    Thread scraper = new Thread(() -> {
      try {
        while (!runner.isDone()) {
          for (String path : new String[] {"/metrics", "/status"}) {
            http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + path))
                .build(), java.net.http.HttpResponse.BodyHandlers.discarding());
          }
          Thread.sleep(scrapeMs);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.io.IOException e) {
        // the job stopped its server between the check and the request
      }
    }, "bench-scraper");
    scraper.setDaemon(true);
    scraper.start();
    return scraper;
  }

  /** Fails unless {@code actual} messages were processed. */
  public static void expect(long expected, long actual) {
    if (actual != expected) {
      throw new IllegalStateException("processed " + actual + " of " + expected);
    }
  }

  /**
   * A single-node broker for a benchmark (the one of {@code bin/millrace kafka-dev}), in a new
   * temporary directory, with a 1 GB heap; the caller stops it.
   */
  public static DevBroker startBroker() throws IOException {
    return DevBroker.start(Files.createTempDirectory("millrace-bench-broker"), 0,
        Path.of(System.getProperty("millrace.broker.lib", "millrace-kafka/target/broker-lib")),
        List.of("-Xms1g", "-Xmx1g"), Duration.ofSeconds(90));
  }

  /**
   * Stops a benchmark's broker and deletes its directory: the topics of a few runs are
   * gigabytes, and left behind they filled this machine's disk.
   */
  public static void stopBroker(DevBroker broker) throws IOException {
    broker.stop();
    TempDirs.deleteRecursively(broker.dir());
  }
}
