package io.millrace.bench.nexmark.millrace;

import io.millrace.api.config.JobConfig;
import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.QueryRun;
import io.millrace.bench.support.Args;
import io.millrace.bench.support.TempDirs;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One Nexmark query on Millrace, in this JVM (a child of {@code bench nexmark}): the query's DSL
 * application on the run's topics, writing {@code --out}; RocksDB stores with changelogs on Kafka
 * (the DSL's defaults there), one container per core, at-least-once or exactly-once. Timed by
 * {@link QueryRun}.
 */
public final class MillraceNexmark {
  private MillraceNexmark() {}

  /** The applications by query. */
  public static Class<?> application(NexmarkQuery query) {
    return switch (query) {
      case Q0 -> Queries.Q0.class;
      case Q1 -> Queries.Q1.class;
      case Q2 -> Queries.Q2.class;
      case Q3 -> Queries.Q3.class;
      case Q4 -> Queries.Q4.class;
      case Q5 -> Queries.Q5.class;
      case Q7 -> Queries.Q7.class;
      case Q8 -> Queries.Q8.class;
      case Q11 -> Queries.Q11.class;
    };
  }

  /** Runs it; see the class comment. */
  public static void main(String[] argv) throws Throwable {
    Args args = new Args(argv, 0).only("query", "bootstrap", "person", "auction", "bid", "out",
        "records", "quiet-ms", "guarantee", "containers", "check");
    NexmarkQuery query = NexmarkQuery.named(args.get("query", "q0"));
    Class<?> app = application(query);
    if (app == null) {
      throw new IllegalArgumentException(query.label() + " is not on Millrace's DSL yet");
    }
    String bootstrap = args.get("bootstrap", "127.0.0.1:9092");
    Path state = Files.createTempDirectory("millrace-nexmark");
    String run = UUID.randomUUID().toString().substring(0, 8);
    try {
      Map<String, String> c = new HashMap<>();
      c.put("job.name", "nexmark-" + query.label() + "-" + run);
      c.put("job.state.dir", state.toString());
      c.put("app.class", app.getName());
      c.put("job.container.count", args.get("containers",
          Integer.toString(Runtime.getRuntime().availableProcessors())));
      c.put("systems.kafka.bootstrap.servers", bootstrap);
      for (String input : query.inputs()) {
        c.put("streams." + input + ".system", "kafka");
        c.put("streams." + input + ".physical.name", args.get(input, null));
      }
      c.put("streams.out.system", "kafka");
      c.put("streams.out.physical.name", args.get("out", null));
      // dsl.watermark.idle.ms stays at its default (30 s): at 1 s, a source partition that a
      // busy container did not get records from for one tick was taken as idle mid-run, its
      // task said so downstream, every sender of a repartition partition could be idle at once,
      // and q11's sessions after the re-key closed on the highest sender's watermark, the slower
      // senders' bids then late (--check differed). A repartition partition that gets no
      // record is no longer waited on: its senders' markers move it.
      if (args.get("guarantee", "at-least-once").equals("exactly-once")) {
        c.put("task.processing.guarantee", "exactly-once");
        c.put("task.checkpoint.system", "kafka");
      }
      LocalRunner runner = new LocalRunner(JobPlanner.plan(JobConfig.of(c)), Clock.SYSTEM);
      long cpu0 = QueryRun.cpuNanos();
      long start = System.nanoTime();
      runner.start();
      QueryRun.measure("millrace", query, args.getLong("records", 0), bootstrap,
          args.get("out", null), run, args.getLong("quiet-ms", 3000), start, cpu0, runner::failure,
          () -> {
            runner.requestStop();
            if (!runner.await(120, TimeUnit.SECONDS)) {
              throw new IllegalStateException("the job did not stop within 120 s");
            }
          });
    } finally {
      TempDirs.deleteRecursively(state);
      io.millrace.bench.kafka.BenchTopics.deleteRunTopics(bootstrap, run);
    }
  }
}
