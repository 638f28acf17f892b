package io.millrace.bench.store;

import io.millrace.api.config.JobConfig;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.Stats;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.job.JobPlan;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Restoring a store: a job fills a RocksDB store with N unique keys and ~100-byte values (10M: about
 * 1.1 GB of data) whose changelog is a Kafka topic, and stops cleanly. Then, alternating R times:
 * a restart that reopens the local files (nothing to replay after a clean stop), and a restart
 * after the local files are deleted, which restores the whole changelog. The figure is the
 * time until the stores are ready (the {@code store-open-ms} and {@code store-restore-ms}
 * metrics: opening RocksDB, reading the changelog, writing RocksDB), and beside it the restart's
 * whole time, from planning the job to its end of stream (Kafka clients, consumers, the loop).
 *
 * <p>{@code --containers N} runs the job in N containers of one process ({@code
 * job.container.count}), each restoring its share of the partitions: their restores share the
 * process's one changelog reader and its state updater's thread. The ready figure is then the
 * slowest container's (restores queued behind another's wait: compare the restart figures).
 *
 * <p>{@code --threads 1,2} restores from the changelog once per value of
 * {@code job.container.restore.threads} in each round (the figures of the first value are the
 * RESULT's), to compare parallel restore with one thread in the same run.
 */
public final class RestoreBench {
  private RestoreBench() {}

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0);
    long records = args.getLong("records", 10_000_000);
    int partitions = (int) args.getLong("partitions", 8);
    int runs = (int) args.getLong("runs", 3);
    int containers = (int) args.getLong("containers", 1);
    String bootstrap = args.get("bootstrap", null);
    String[] threads = args.get("threads", "").isEmpty() ? new String[] {null}
        : args.get("threads", "").split(",");
    DevBroker broker = null;
    if (bootstrap == null) {
      broker = io.millrace.bench.support.BenchJobs.startBroker();
      bootstrap = broker.bootstrapServers();
    }
    Path state = Files.createTempDirectory("millrace-restore-bench");
    String changelog = "bench-restore-changelog-" + System.nanoTime();
    try {
      long started = System.nanoTime();
      run(job(bootstrap, state, changelog, records, partitions, records, null, containers));
      System.out.printf(Locale.ROOT, "loaded %,d records into the store and its changelog in %.1f "
          + "s; store files: %.0f MB%n", records, (System.nanoTime() - started) / 1e9,
          size(state.resolve("stores")) / 1e6);
      double[] local = new double[runs];
      double[] localRestore = new double[runs];
      double[] full = new double[runs];
      double[] fullRestore = new double[runs];
      double[][] byThreads = new double[threads.length][runs];
      for (int r = 0; r < runs; r++) {
        double[] l = run(job(bootstrap, state, changelog, records, partitions, 0, null, containers));
        local[r] = l[2];
        localRestore[r] = l[0];
        System.out.printf(Locale.ROOT, "round %d: from local files: stores ready in %.0f ms (%,.0f "
            + "records replayed), restart %.0f ms%n", r + 1, l[0], l[1], local[r]);
        for (int t = 0; t < threads.length; t++) {
          TempDirs.deleteRecursively(state.resolve("stores"));
          double[] f = run(job(bootstrap, state, changelog, records, partitions, 0, threads[t],
              containers));
          byThreads[t][r] = f[0];
          if (t == 0) {
            full[r] = f[2];
            fullRestore[r] = f[0];
          }
          System.out.printf(Locale.ROOT, "round %d: from the changelog%s: stores ready in %.0f ms "
              + "(%,.0f records), restart %.0f ms%n", r + 1,
              threads[t] == null ? "" : " on " + threads[t] + " restore thread(s)", f[0], f[1], f[2]);
        }
      }
      for (int t = 0; t < threads.length && threads[0] != null; t++) {
        System.out.printf(Locale.ROOT, "RESULT store-restore-threads threads=%s "
            + "changelog_ready_ms=%.0f runs=%d%n", threads[t], Stats.median(byThreads[t]), runs);
      }
      System.out.printf(Locale.ROOT, "RESULT store-restore records=%d containers=%d changelog_ready_ms=%.0f "
              + "local_ready_ms=%.0f ready_ratio=%.4f changelog_restart_ms=%.0f "
              + "local_restart_ms=%.0f restart_ratio=%.4f runs=%d%n", records, containers,
          Stats.median(fullRestore), Stats.median(localRestore),
          Stats.median(localRestore) / Stats.median(fullRestore), Stats.median(full),
          Stats.median(local), Stats.median(local) / Stats.median(full), runs);
    } finally {
      TempDirs.deleteRecursively(state);
      if (broker != null) {
        io.millrace.bench.support.BenchJobs.stopBroker(broker);
      }
    }
  }

  private static Map<String, String> job(String bootstrap, Path state, String changelog,
      long records, int partitions, long messages, String restoreThreads, int containers) {
    Map<String, String> c = new HashMap<>();
    c.put("job.container.count", Integer.toString(containers));
    if (restoreThreads != null) {
      c.put("job.container.restore.threads", restoreThreads);
    }
    c.put("job.name", "bench-restore");
    c.put("job.state.dir", state.toString());
    c.put("task.class", LoadTask.class.getName());
    c.put("task.inputs", "events");
    c.put("systems.kafka.bootstrap.servers", bootstrap);
    c.put("streams.events.system", "memory");
    c.put("streams.events.physical.name", "bench-restore-events");
    c.put("streams.events.value.serde", "bytes");
    c.put("streams.events.generator.messages", Long.toString(messages));
    c.put("streams.events.generator.partitions", Integer.toString(partitions));
    c.put("streams.events.generator.payload.bytes", "100");
    c.put("streams.events.generator.keys", Long.toString(Math.max(1, records)));
    c.put("streams.events.offset.reset", "true");
    c.put("stores.data.factory", "rocksdb");
    c.put("stores.data.value.serde", "bytes");
    c.put("stores.data.changelog", "kafka." + changelog);
    return c;
  }

  /**
   * Runs a job to its end; returns the restore's milliseconds, the records it applied, and the
   * whole run's milliseconds.
   */
  private static double[] run(Map<String, String> config) throws Throwable {
    MemoryStreams.drop("bench-restore-events");
    long start = System.nanoTime();
    JobPlan plan = JobPlanner.plan(JobConfig.of(config));
    LocalRunner.runToEnd(plan);
    double whole = (System.nanoTime() - start) / 1e6;
    double ready = 0;
    double restored = 0;
    for (int id = 0; id < plan.containerCount(); id++) {
      Map<String, Long> metrics = plan.metrics().snapshot().getOrDefault("container-" + id,
          Map.of());
      ready = Math.max(ready, metrics.getOrDefault("store-open-ms", 0L)
          + metrics.getOrDefault("store-restore-ms", 0L));
      restored += metrics.getOrDefault("store-restore-records", 0L);
    }
    return new double[] {ready, restored, whole};
  }

  private static long size(Path dir) throws java.io.IOException {
    try (var files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }
}
