package io.millrace.bench.nexmark.millrace;

import io.millrace.bench.nexmark.NexmarkQuery;
import io.millrace.bench.nexmark.events.Auction;
import io.millrace.bench.nexmark.events.Bid;
import io.millrace.bench.nexmark.events.Person;
import io.millrace.bench.nexmark.generator.Generator;
import io.millrace.bench.nexmark.generator.GeneratorConfig;
import io.millrace.test.TaskTestDriver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs a query's DSL application on the task test driver over given events. */
final class QueryDriver {
  private QueryDriver() {}

  /**
   * The query's result lines (the last value per key, split into lines, sorted) once every
   * input has ended, on fresh stores under {@code tmp}.
   */
  static List<String> run(Path tmp, NexmarkQuery query, Class<?> app, List<?> events)
      throws Exception {
    Map<String, String> job = new HashMap<>();
    job.put("job.name", "nexmark-" + query.label());
    job.put("app.class", app.getName());
    for (String input : query.inputs()) {
      job.put("streams." + input + ".system", "memory");
    }
    job.put("streams.out.system", "memory");
    Path state = Files.createTempDirectory(tmp, "state"); // fresh stores a run
    try (TaskTestDriver driver = TaskTestDriver.forJob(job).stateDir(state).build()) {
      for (Object e : events) {
        String input = e instanceof Bid ? "bid" : e instanceof Auction ? "auction" : "person";
        if (!query.inputs().contains(input)) {
          continue;
        }
        if (e instanceof Bid b) {
          driver.pipe(input, b.auction(), b, b.dateTime());
        } else if (e instanceof Auction a) {
          driver.pipe(input, a.id(), a, a.dateTime());
        } else {
          Person p = (Person) e;
          driver.pipe(input, p.id(), p, p.dateTime());
        }
      }
      for (String input : query.inputs()) {
        driver.endOfStream(input);
      }
      List<String> lines = new ArrayList<>();
      for (Object v : driver.lastValues("out").values()) {
        if (v != null && !v.toString().isEmpty()) {
          lines.addAll(Arrays.asList(v.toString().split("\n")));
        }
      }
      lines.sort(null);
      return lines;
    }
  }

  /** 20,000 generated events (seed 7, 1,000 a second), shuffled in groups of the given size. */
  static List<Object> generated(int outOfOrderGroup) {
    List<Object> events = new ArrayList<>();
    new Generator(GeneratorConfig.defaults(7, 20_000).withEventsPerSecond(1_000)
        .withOutOfOrderGroupSize(outOfOrderGroup)).forEachRemaining(events::add);
    return events;
  }
}
