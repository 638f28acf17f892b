package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import io.millrace.api.store.KeyValue;
import io.millrace.core.embed.Millrace;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.window.Windows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repartition's watermark on the real runtime, two tasks (review findings): results a window
 * holds back are not late past the repartition, and an upstream task with nothing to read, or
 * gone quiet, does not stop the windows after it.
 */
class RepartitionWatermarkTest {
  private static final AtomicInteger UNIQUE = new AtomicInteger();
  private static final long TEN_S = 10_000;

  @TempDir Path tmp;

  /** Users active per ten seconds: a count per user, then a count of those counts. */
  public static final class TwoStage implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMillis(TEN_S)).grace(Duration.ZERO))
          .count(Stored.as("per-user"))
          .map((window, count) -> new KeyValue<>("all", window.key()))
          .groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMillis(TEN_S)).grace(Duration.ZERO))
          .count(Stored.as("users"))
          .map((window, count) -> new KeyValue<>(window.key() + "@" + window.start(),
              Long.toString(count)))
          .to("out");
    }
  }

  /** Every view counted per ten seconds, whatever its user: a repartition to one key. */
  public static final class AllViews implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").selectKey((user, page) -> "all").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMillis(TEN_S)).grace(Duration.ZERO))
          .count(Stored.as("views"))
          .map((window, count) -> new KeyValue<>(window.key() + "@" + window.start(),
              Long.toString(count)))
          .to("out");
    }
  }

  private Map<String, String> job(String name, Class<? extends StreamApplication> app) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("app.class", app.getName());
    config.put("job.state.dir", tmp.resolve(name).toString());
    for (String stream : List.of("views", "out")) {
      config.put("streams." + stream + ".system", "memory");
      config.put("streams." + stream + ".physical.name", name + "-" + stream);
    }
    config.put("streams.out.partitions", "1");
    config.put("dsl.watermark.tick.ms", "20");
    return config;
  }

  private static Map<String, String> results(String name) {
    Map<String, String> last = new TreeMap<>();
    MemoryStream out = MemoryStreams.get(name + "-out");
    if (out != null) {
      for (Envelope e : out.messages()) {
        last.put((String) e.key(), (String) e.value());
      }
    }
    return last;
  }

  private static long late(RunningJob job, String store) {
    long late = 0;
    for (int task = 0; task < 2; task++) {
      late += job.metrics().counter("task-" + task, store + "-late-records").count();
    }
    return late;
  }

  @Test
  void aFirstStageWindowsResultsAreCountedByTheSecondStageAcrossARepartition() throws Exception {
    String name = "two-stage-" + UNIQUE.incrementAndGet();
    Map<String, String> config = job(name, TwoStage.class);
    config.put("dsl.watermark.idle.ms", "0"); // both tasks have records: wait for both
    MemoryStream views = MemoryStreams.create(name + "-views", 2);
    Map<Long, TreeSet<String>> model = new TreeMap<>(); // window start -> users in it
    for (int i = 0; i < 300; i++) {
      int user = (i * 7) % 5;
      long time = i * 200L;
      views.append(user % 2, "u" + user, "/", time, Headers.EMPTY);
      model.computeIfAbsent(time / TEN_S * TEN_S, s -> new TreeSet<>()).add("u" + user);
    }
    views.append(0, "u0", "/", 1_000_000, Headers.EMPTY); // far on: every window closes
    views.append(1, "u1", "/", 1_000_000, Headers.EMPTY);
    Map<String, String> expected = new TreeMap<>();
    model.forEach((start, users) -> expected.put("all@" + start,
        Long.toString(users.size())));
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "every ten seconds counted", () ->
          results(name).keySet().containsAll(expected.keySet()) || job.failure().isPresent());
      assertThat(job.failure()).isEmpty();
      assertThat(late(job, "users")).as("first-stage results late at the second").isZero();
    }
    assertThat(results(name)).isEqualTo(expected);
    List<Envelope> repartitioned = MemoryStreams.get(name + "-users-repartition").messages();
    assertThat(repartitioned).filteredOn(e -> e.key() != null).isNotEmpty()
        .as("records carry no watermark: only markers do").allMatch(e -> e.headers().isEmpty());
    assertThat(repartitioned).filteredOn(e -> e.key() == null).isNotEmpty()
        .allMatch(e -> e.headers().lastString(PipelineRuntime.WATERMARK) != null);
  }

  @Test
  void anUpstreamTaskWithNothingToReadDoesNotStopTheRepartitionsWindows() throws Exception {
    String name = "empty-upstream-" + UNIQUE.incrementAndGet();
    Map<String, String> config = job(name, AllViews.class);
    config.put("dsl.watermark.idle.ms", "300");
    MemoryStream views = MemoryStreams.create(name + "-views", 2);
    for (int i = 0; i < 100; i++) { // all in partition 0: task 1 reads nothing, ever
      views.append(0, "u" + i % 3, "/", i * 1_000L, Headers.EMPTY);
    }
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "the first 90 s counted", () ->
          results(name).size() >= 9 || job.failure().isPresent());
      assertThat(job.failure()).isEmpty();
    }
    Map<String, String> expected = new TreeMap<>();
    for (int w = 0; w < 9; w++) {
      expected.put("all@" + w * TEN_S, "10");
    }
    assertThat(results(name)).containsAllEntriesOf(expected);
  }

  @Test
  void anUpstreamTaskGoneQuietIsLeftOutOfTheRepartitionsWatermark() throws Exception {
    String name = "quiet-upstream-" + UNIQUE.incrementAndGet();
    Map<String, String> config = job(name, AllViews.class);
    // Long enough for task 1 to read its records before it is idle on a loaded machine.
    config.put("dsl.watermark.idle.ms", "3000");
    MemoryStream views = MemoryStreams.create(name + "-views", 2);
    Map<String, Long> model = new TreeMap<>();
    for (int i = 0; i < 100; i++) { // partition 1 stops at 20 s, partition 0 goes on to 99 s
      long time = i * 1_000L;
      views.append(0, "a", "/", time, Headers.EMPTY);
      if (time < 20_000) {
        views.append(1, "b", "/", time, Headers.EMPTY);
      }
      if (time < 90_000) {
        model.merge("all@" + time / TEN_S * TEN_S, 1L + (time < 20_000 ? 1 : 0), Long::sum);
      }
    }
    Map<String, String> expected = new TreeMap<>();
    model.forEach((window, count) -> expected.put(window, Long.toString(count)));
    try (RunningJob job = Millrace.start(config)) {
      Await.until(Await.DEADLINE, "the first 90 s counted", () ->
          results(name).size() >= 9 || job.failure().isPresent());
      assertThat(job.failure()).isEmpty();
    }
    assertThat(results(name)).containsAllEntriesOf(expected);
  }
}
