package io.millrace.dsl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.api.store.KeyValue;
import io.millrace.core.embed.Millrace;
import io.millrace.core.embed.RunningJob;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.testing.Await;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.StringSerde;
import io.millrace.dsl.window.Windows;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DSL jobs through the real runtime (millrace run's path: the translator found by ServiceLoader,
 * the plan, the loop), on the memory and file systems with RocksDB stores.
 */
class DslJobsEndToEndTest {
  private static final AtomicInteger UNIQUE = new AtomicInteger();
  private static final Duration DEADLINE = Await.DEADLINE;

  @TempDir Path tmp;

  /** Words of lines counted: a re-key, so a repartition through word-counts-repartition. */
  public static final class WordCount implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("lines")
          .flatMap((k, line) -> {
            List<KeyValue<String, String>> words = new ArrayList<>();
            for (String word : line.split(" ")) {
              words.add(new KeyValue<>(word, word));
            }
            return words;
          })
          .groupByKey()
          .count(Stored.as("word-counts"))
          .to("counts");
    }
  }

  /** Views ("<millis>,<page>" per user) per user per minute, late ones to "late". */
  public static final class ViewsPerMinute implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.stream(Source.<String, String>of("views")
              .withTimestamps((user, value, ts) -> Long.parseLong(value.split(",")[0]))
              .withMaxOutOfOrder(Duration.ofSeconds(5)))
          .groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMinutes(1)).grace(Duration.ofSeconds(10)))
          .lateRecordsTo("late")
          .count(Stored.as("per-minute"))
          .map((window, count) -> new KeyValue<>(window.key() + "@" + window.start(),
              Long.toString(count)))
          .to("counts");
    }
  }

  /** Views per user per minute beside a one-partition stream of notes echoed as they are. */
  public static final class ViewsBesideNotes implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      new ViewsPerMinute().describe(graph);
      graph.<String, String>stream("notes").to("echo");
    }
  }

  /** Fails on records whose value is "boom". */
  public static final class Exploding implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> in = graph.stream("in");
      in.mapValues(v -> {
        if (v.equals("boom")) {
          throw new IllegalStateException("cannot take boom");
        }
        return v.toUpperCase();
      }).to("out");
    }
  }

  /** A key serde that cannot write the key "poison". */
  public static final class PoisonKeySerde implements Serde<String> {
    private final StringSerde strings = new StringSerde();

    @Override
    public byte[] toBytes(String object) {
      if ("poison".equals(object)) {
        throw new IllegalArgumentException("poison cannot be written");
      }
      return strings.toBytes(object);
    }

    @Override
    public String fromBytes(byte[] bytes) {
      return strings.fromBytes(bytes);
    }
  }

  /** A windowed count whose store's key serde fails on one key. */
  public static final class PoisonedWindows implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("in").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofSeconds(1)).grace(Duration.ZERO))
          .count(Stored.<String, Long>as("poisoned").withKeySerde(new PoisonKeySerde()))
          .to("out");
    }
  }

  private Map<String, String> memoryJob(String name, Class<? extends StreamApplication> app,
      String... streams) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", name);
    config.put("app.class", app.getName());
    config.put("job.state.dir", tmp.resolve(name).toString());
    for (String stream : streams) {
      config.put("streams." + stream + ".system", "memory");
      config.put("streams." + stream + ".physical.name", name + "-" + stream);
    }
    return config;
  }

  private static Map<Object, Object> lastValues(MemoryStream stream) {
    Map<Object, Object> last = new HashMap<>();
    if (stream != null) {
      for (Envelope e : stream.messages()) {
        last.put(e.key(), e.value());
      }
    }
    return last;
  }

  @Test
  void aRepartitionedCountRunsOnTheRuntimeWithEachWordCountedInOneTask() throws Exception {
    String name = "words-" + UNIQUE.incrementAndGet();
    Map<String, String> config = memoryJob(name, WordCount.class, "lines", "counts");
    MemoryStream lines = MemoryStreams.create(name + "-lines", 3);
    Random random = new Random(5);
    Map<Object, Object> model = new HashMap<>();
    for (int i = 0; i < 600; i++) {
      StringBuilder line = new StringBuilder();
      for (int w = 0; w < 1 + random.nextInt(5); w++) {
        String word = "w" + random.nextInt(40);
        line.append(w == 0 ? "" : " ").append(word);
        model.merge(word, 1L, (a, b) -> (Long) a + (Long) b);
      }
      lines.append(i % 3, null, line.toString());
    }
    lines.seal();
    try (RunningJob job = Millrace.start(config)) {
      Await.until(DEADLINE, "every word counted", () -> lastValues(
          MemoryStreams.get(name + "-counts"))
          .equals(model));
      assertThat(job.failure()).isEmpty();
    }
    MemoryStream repartition = MemoryStreams.get(name + "-word-counts-repartition");
    assertThat(repartition.partitionCount()).as("one partition per task").isEqualTo(3);
    for (int p = 0; p < 3; p++) {
      for (Envelope e : repartition.messages(p)) {
        assertThat(Math.floorMod(e.key().hashCode(), 3)).as("word " + e.key()).isEqualTo(p);
      }
    }
  }

  @Test
  void aWindowedCountOverAFileEndsWithEveryWindowOnceAndItsLateRecordsAside() throws Exception {
    Random random = new Random(9);
    StringBuilder text = new StringBuilder();
    Map<String, Long> model = new TreeMap<>();
    List<String> late = new ArrayList<>();
    long clock = 0;
    long watermark = Long.MIN_VALUE;
    for (int i = 0; i < 3_000; i++) {
      clock += random.nextInt(100);
      long t = Math.max(0, clock - random.nextInt(random.nextInt(50) == 0 ? 40_000 : 4_000));
      String user = "user" + random.nextInt(4);
      text.append(user).append(',').append(t).append(",/page\n");
      long start = Math.floorDiv(t, 60_000) * 60_000;
      if (watermark != Long.MIN_VALUE && start + 60_000 + 10_000 <= watermark) {
        late.add(user + "\t" + t + ",/page");
      } else {
        model.merge(user + "@" + start, 1L, Long::sum);
      }
      watermark = Math.max(watermark, t - 5_000);
    }
    Path input = Files.writeString(tmp.resolve("views.csv"), text);
    Map<String, String> config = new LinkedHashMap<>();
    config.put("job.name", "views-per-minute");
    config.put("app.class", ViewsPerMinute.class.getName());
    config.put("job.state.dir", tmp.resolve("state").toString());
    config.put("streams.views.system", "file");
    config.put("streams.views.physical.name", input.toString());
    config.put("streams.views.file.key.separator", ",");
    for (String out : List.of("counts", "late")) {
      config.put("streams." + out + ".system", "file");
      config.put("streams." + out + ".physical.name", tmp.resolve(out).toString());
      config.put("streams." + out + ".partitions", "1");
    }
    try (RunningJob job = Millrace.start(config)) {
      job.join();
      assertThat(job.metrics().counter("task-0", "per-minute-late-records").count())
          .isEqualTo(late.size());
    }
    assertThat(late).as("the data has late records").isNotEmpty();
    Map<String, Long> counted = new TreeMap<>();
    for (String line : Files.readAllLines(tmp.resolve("counts").resolve("part-00000"),
        StandardCharsets.UTF_8)) {
      String[] kv = line.split("\t");
      assertThat(counted.put(kv[0], Long.parseLong(kv[1]))).as("window " + kv[0] + " once")
          .isNull();
    }
    assertThat(counted).isEqualTo(model);
    assertThat(Files.readAllLines(tmp.resolve("late").resolve("part-00000"))).isEqualTo(late);
  }

  @Test
  void anOperatorThatThrowsFailsTheJobNamingItOrIsSkippedUnderTheSkipPolicy() throws Exception {
    String name = "exploding-" + UNIQUE.incrementAndGet();
    MemoryStream in = MemoryStreams.create(name + "-in", 1);
    for (String v : List.of("a", "boom", "b")) {
      in.append(0, "k", v);
    }
    in.seal();
    Map<String, String> config = memoryJob(name, Exploding.class, "in", "out");
    config.put("streams.out.partitions", "1");
    try (RunningJob job = Millrace.start(config)) {
      job.await(DEADLINE);
      assertThat(job.failure()).isPresent();
      assertThat(causes(job.failure().get()))
          .contains("mapValues at in/mapValues: failed on record (key k, value boom)")
          .contains("cannot take boom");
    }
    String skipping = "skipping-" + UNIQUE.incrementAndGet();
    MemoryStream again = MemoryStreams.create(skipping + "-in", 1);
    for (String v : List.of("a", "boom", "b")) {
      again.append(0, "k", v);
    }
    again.seal();
    Map<String, String> skip = memoryJob(skipping, Exploding.class, "in", "out");
    skip.put("streams.out.partitions", "1");
    skip.put("task.error.policy", "skip");
    try (RunningJob job = Millrace.start(skip)) {
      job.join();
    }
    assertThat(MemoryStreams.get(skipping + "-out").messages()).extracting(Envelope::value)
        .containsExactly("A", "B");
  }

  @Test
  void aSerdeThatFailsOnARecordFailsTheJobNamingTheOperator() throws Exception {
    String name = "poisoned-" + UNIQUE.incrementAndGet();
    MemoryStream in = MemoryStreams.create(name + "-in", 1);
    in.append(0, "fine", "x", 1_000, io.millrace.api.Headers.EMPTY);
    in.append(0, "poison", "x", 1_500, io.millrace.api.Headers.EMPTY);
    in.seal();
    Map<String, String> config = memoryJob(name, PoisonedWindows.class, "in", "out");
    config.put("streams.out.partitions", "1");
    try (RunningJob job = Millrace.start(config)) {
      job.await(DEADLINE);
      assertThat(job.failure()).isPresent();
      assertThat(causes(job.failure().get()))
          .contains("windowed count at in/windowed-count:poisoned")
          .contains("poison cannot be written");
    }
  }

  /** Counts per key in tumbling windows of a second, no grace, late records counted. */
  public static final class PerSecond implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofSeconds(1)).grace(Duration.ZERO))
          .count(Stored.as("per-second"))
          .to("out");
    }
  }

  @Test
  void aRestartedWindowedJobNeitherEmitsAClosedWindowAgainNorTakesRecordsForIt()
      throws Exception {
    String name = "restart-" + UNIQUE.incrementAndGet();
    MemoryStream views = MemoryStreams.create(name + "-views", 1);
    Map<String, String> config = memoryJob(name, PerSecond.class, "views", "out");
    config.put("streams.out.partitions", "1");
    for (long t : new long[] {100, 200, 1_100, 1_200}) {
      views.append(0, "a", "/", t, io.millrace.api.Headers.EMPTY);
    }
    try (RunningJob job = Millrace.start(config)) {
      Await.until(DEADLINE, "the first second closed",
          () -> MemoryStreams.get(name + "-out") != null
          && MemoryStreams.get(name + "-out").size(0) == 1);
      assertThat(job.failure()).isEmpty();
    } // stopped: committed, the second second's pane in the RocksDB files
    views.append(0, "a", "/late", 300, io.millrace.api.Headers.EMPTY);
    views.append(0, "a", "/", 2_100, io.millrace.api.Headers.EMPTY);
    try (RunningJob job = Millrace.start(config)) {
      Await.until(DEADLINE, "the second second closed",
          () -> MemoryStreams.get(name + "-out").size(0) == 2);
      assertThat(job.metrics().counter("task-0", "per-second-late-records").count())
          .as("a record for the second emitted before the restart is late").isEqualTo(1);
    }
    assertThat(MemoryStreams.get(name + "-out").messages(0))
        .extracting(e -> e.key().toString() + "=" + e.value())
        .containsExactly("a@0/1000=2", "a@1000/2000=2");
  }

  private static String causes(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c.getMessage()).append('\n');
    }
    return all.toString();
  }

  @Test
  void aTaskWithNoPartitionOfAStreamClosesItsWindowsWithoutWaitingForIt() throws Exception {
    String name = "beside-" + UNIQUE.incrementAndGet();
    Map<String, String> config = memoryJob(name, ViewsBesideNotes.class, "views", "counts",
        "late", "notes", "echo");
    config.put("dsl.watermark.idle.ms", "0"); // never leave a partition out: only what it reads
    MemoryStream views = MemoryStreams.create(name + "-views", 2);
    MemoryStreams.create(name + "-notes", 1); // task 1 holds no partition of it
    views.append(1, "u", "1000,home");
    views.append(1, "u", "200000,home"); // minute 3: minute 0 closed, past its grace
    try (RunningJob job = Millrace.start(config)) {
      Await.until(DEADLINE, "minute 0 of task 1 emitted", () -> "1".equals(
          lastValues(MemoryStreams.get(name + "-counts")).get("u@0")));
      assertThat(job.failure()).isEmpty();
    }
  }

  /** Views of every user re-keyed to one key and counted per 10 s: every task sends to one partition. */
  public static final class AllInOne implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.<String, String>stream("views").selectKey((user, page) -> "b").groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofSeconds(10)).grace(Duration.ZERO))
          .count(Stored.as("all"))
          .to("out");
    }
  }

  @Test
  void aRepartitionsWatermarkFollowsItsSlowestUpstreamTaskNotItsFastest() throws Exception {
    String name = "slowest-" + UNIQUE.incrementAndGet();
    Map<String, String> config = memoryJob(name, AllInOne.class, "views", "out");
    config.put("streams.out.partitions", "1");
    MemoryStream views = MemoryStreams.create(name + "-views", 2);
    views.append(0, "fast", "/", 1_000_000, io.millrace.api.Headers.EMPTY); // task 0, far ahead
    try (RunningJob job = Millrace.start(config)) {
      Await.until(DEADLINE, "task 0's record in the repartition", () ->
          MemoryStreams.get(name + "-all-repartition") != null
          && MemoryStreams.get(name + "-all-repartition").size(0) >= 1);
      for (int i = 0; i < 100; i++) { // task 1's, behind: in time for their windows
        views.append(1, "slow", "/", i * 1_000L, io.millrace.api.Headers.EMPTY);
      }
      Await.until(DEADLINE, "task 1's first 90 s counted", () ->
          MemoryStreams.get(name + "-out") != null
          && MemoryStreams.get(name + "-out").messages(0).stream()
              .filter(e -> e.value() != null).count() >= 9);
      assertThat(job.metrics().counter("task-0", "all-late-records").count())
          .as("nothing of the slow task is late").isZero();
      assertThat(job.failure()).isEmpty();
    }
    List<String> counted = new ArrayList<>();
    for (Envelope e : MemoryStreams.get(name + "-out").messages(0)) {
      counted.add(e.key() + "=" + e.value());
    }
    List<String> expected = new ArrayList<>();
    for (int w = 0; w < 9; w++) {
      expected.add("b@" + w * 10_000 + "/" + (w + 1) * 10_000 + "=10");
    }
    assertThat(counted).startsWith(expected.toArray(new String[0]));
  }
}
