package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.readAll;
import static io.millrace.kafka.KafkaTestSupport.topic;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.store.KeyValue;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.StreamJoined;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.JoinWindows;
import io.millrace.dsl.window.Windows;
import io.millrace.kafka.dev.DevBroker;
import io.millrace.kafka.testing.SteadyInput;
import io.millrace.kafka.testing.TransactionLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * DSL jobs under exactly-once, killed (SIGKILL) twenty times while their input keeps arriving: a
 * windowed count on event time, whose windows' counts, the windows it has emitted and its output
 * all commit in one transaction, and a stream-stream join, whose two sides wait in stores. A
 * reader of committed data finds every final window result, and every join result, exactly once,
 * as a plain model of the input gives them. The windowed count killed as often under
 * at-least-once loses no window.
 */
class DslExactlyOnceKillTest {
  static final int PARTITIONS = 2;
  static final int KEYS = 50;
  static final long WINDOW_MS = 1_000;
  /** Keys of the join's input: i and i + 25 share one, and have unlike parity. */
  static final int JOIN_KEYS = 25;
  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  /** Record i of a partition happens at 2i ms of event time: 500 records a window a partition. */
  static long eventTime(String value) {
    return 2 * Long.parseLong(value.substring(value.indexOf(':') + 1));
  }

  /** Per key and one-second tumbling window of event time, the count, once the window closes. */
  public static final class WindowedCounts implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      graph.stream(Source.<String, String>of("in")
              .withTimestamps((key, value, recordTime) -> eventTime(value))
              .withMaxOutOfOrder(Duration.ZERO))
          .groupByKey()
          .windowedBy(Windows.tumbling(Duration.ofMillis(WINDOW_MS)).grace(Duration.ZERO))
          .count(Stored.as("counts"))
          .map((window, count) -> new KeyValue<>(window.key() + "@" + window.start(),
              Long.toString(count)))
          .to("out");
    }
  }

  /**
   * Records whose i is even joined with those whose i is odd, of the same key (the same i mod
   * JOIN_KEYS, so i and j = i +- 25), at most 60 ms of event time (30 records) apart.
   */
  public static final class EvenOddJoin implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> in = graph.stream(Source.<String, String>of("in")
          .withTimestamps((key, value, recordTime) -> eventTime(value))
          .withMaxOutOfOrder(Duration.ZERO));
      MessageStream<String, String> even = in.filter((k, v) -> eventTime(v) % 4 == 0);
      MessageStream<String, String> odd = in.filter((k, v) -> eventTime(v) % 4 != 0);
      even.join(odd, (l, r) -> l + "&" + r,
              JoinWindows.of(Duration.ofMillis(60)).grace(Duration.ZERO),
              StreamJoined.<String, String, String>as("pairs")
                  .withValueSerdes(Serdes.string(), Serdes.string()))
          .to("out");
    }
  }

  @Test
  void aWindowedCountKilledTwentyTimesEmitsEveryFinalWindowResultExactlyOnce() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("dsl-eos-in");
    String out = topic("dsl-eos-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    Map<String, String> config = dslJob(broker, WindowedCounts.class, in, out);
    ChildKills kills = new ChildKills(config, tmp, PARTITIONS,
        "-Dorg.slf4j.simpleLogger.log.io.millrace.core.commit=debug",
        "-Dorg.slf4j.simpleLogger.log.io.millrace.kafka.produce=debug");
    long[] written;
    try (SteadyInput input = new SteadyInput(broker.bootstrapServers(), in, PARTITIONS, 20,
        (p, i) -> "p" + p + "-k" + (i % KEYS))) {
      kills.killRepeatedly(20, input, run -> {});
      written = input.stop();
    }
    kills.finish(written);

    Map<String, Long> model = windowCounts(written);
    long watermark = lastWatermark(written);
    Map<String, String> emitted = new HashMap<>();
    Map<String, String> where = new HashMap<>();
    try {
      for (ConsumerRecord<String, String> r : readAll(broker.bootstrapServers(), out, true)) {
        String at = r.partition() + "@" + r.offset();
        String before = emitted.put(r.key(), r.value());
        assertThat(before).as("window %s emitted a second time (at %s, first at %s)", r.key(), at,
            where.get(r.key())).isNull();
        where.put(r.key(), at);
        assertThat(Long.parseLong(r.value())).as("the count of window %s (at %s)", r.key(), at)
            .isEqualTo(model.get(r.key()));
      }
    } catch (AssertionError e) {
      // Where the count went wrong: the first changelog transactions whose counts are not the
      // input's up to the offsets checkpointed with them (the children log each commit's offsets
      // at debug, in run-N/child.log).
      throw new AssertionError(e.getMessage() + "\n" + auditChangelog(
          broker.dir().resolve("data"), config.get("job.name")), e);
    }
    assertEveryClosedWindowEmitted(model, watermark, emitted.keySet());
  }

  /**
   * Sets each committed transaction of the count's changelog beside the checkpoint that committed
   * with it (the same producer epoch) and lists the panes whose count is not the
   * input's count up to that checkpoint's offset: the first such transaction is where a kill, a
   * restore or a commit went wrong.
   */
  static String auditChangelog(Path data, String job) {
    StringBuilder report = new StringBuilder("changelog audit:");
    try {
      List<TransactionLog.Transaction> checkpoints =
          TransactionLog.read(data, "__millrace-checkpoints-" + job, 0);
      for (int p = 0; p < PARTITIONS; p++) {
        int wrong = 0;
        for (TransactionLog.Transaction t
            : TransactionLog.read(data, job + "-counts-changelog", p)) {
          if (!t.committed() || wrong >= 5) {
            continue;
          }
          long input = checkpointedInput(checkpoints, t, p);
          // A pane's last write in the transaction (one at the commit's start may be written
          // again when its offsets are taken).
          Map<String, TransactionLog.Entry> last = new java.util.LinkedHashMap<>();
          for (TransactionLog.Entry e : t.entries()) {
            last.put(java.util.Arrays.toString(e.key()), e);
          }
          for (TransactionLog.Entry e : last.values()) {
            if (e.key().length <= Long.BYTES || e.value() == null) {
              continue; // the operator's progress, or a deleted pane
            }
            long pane = paneStart(e.key());
            String key = new String(e.key(), Long.BYTES, e.key().length - Long.BYTES,
                java.nio.charset.StandardCharsets.UTF_8);
            long count = java.nio.ByteBuffer.wrap(e.value()).getLong();
            long want = paneCount(pane, Integer.parseInt(key.substring(key.indexOf("-k") + 2)),
                input);
            if (input >= 0 && count != want) {
              wrong++;
              report.append(String.format("%n  partition %d, transaction marked at %d: pane %s@%d "
                  + "= %d at changelog offset %d, but the input up to checkpointed offset %d "
                  + "gives %d", p, t.markerOffset(), key, pane, count, e.offset(), input, want));
              break;
            }
          }
        }
        if (wrong == 0) {
          report.append(String.format("%n  partition %d: every committed count matches the "
              + "input up to its checkpoint", p));
        }
      }
    } catch (RuntimeException e) {
      report.append(" failed: ").append(e);
    }
    return report.toString();
  }

  /**
   * Partition {@code p}'s input offset in the checkpoint committed with {@code t} (the checkpoint
   * transaction of the same producer and epoch), or -1.
   */
  private static long checkpointedInput(List<TransactionLog.Transaction> checkpoints,
      TransactionLog.Transaction t, int p) {
    TransactionLog.Transaction same = null;
    for (TransactionLog.Transaction c : checkpoints) {
      if (c.sameAs(t)) {
        same = c;
      }
    }
    if (same == null) {
      return -1;
    }
    long input = -1;
    for (TransactionLog.Entry e : same.entries()) {
      if (e.value() != null && new String(e.key(), java.nio.charset.StandardCharsets.UTF_8)
          .equals("task-" + p)) {
        for (String line : new String(e.value(), java.nio.charset.StandardCharsets.UTF_8)
            .split("\n")) {
          String[] fields = line.split("\t");
          if (fields.length == 4 && fields[1].equals("in")) {
            input = Long.parseLong(fields[3]);
          }
        }
      }
    }
    return input;
  }

  /** The pane start of a window store key (PaneKeys: big-endian, sign bit flipped). */
  private static long paneStart(byte[] key) {
    return java.nio.ByteBuffer.wrap(key, 0, Long.BYTES).getLong() ^ Long.MIN_VALUE;
  }

  /** Records 0..{@code upTo} of a partition with key index {@code k} in the pane {@code pane}. */
  private static long paneCount(long pane, int k, long upTo) {
    long count = 0;
    for (long i = Math.max(0, pane / 2); i <= upTo && 2 * i < pane + WINDOW_MS; i++) {
      if (i % KEYS == k && 2 * i >= pane) {
        count++;
      }
    }
    return count;
  }

  /**
   * Under at-least-once the same kills may repeat a window's result, and count a record twice (a
   * pane's count reached the changelog before the record's offset was committed), but lose
   * none: a closed window's deletion and progress reach its store only once a commit has
   * acknowledged its result, so a window whose result a kill lost is emitted again after it.
   * (A guard, not a reproduction: the loss needs a kill between the acknowledgements of a
   * result and of its window's deletion, which one broker gives in one response.)
   */
  @Test
  void aWindowedCountKilledTwentyTimesUnderAtLeastOnceEmitsEveryClosedWindow() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("dsl-alo-in");
    String out = topic("dsl-alo-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    Map<String, String> config = dslJob(broker, WindowedCounts.class, in, out);
    config.put("task.processing.guarantee", "at-least-once");
    config.put("task.commit.ms", "100"); // as often as the exactly-once runs commit
    ChildKills kills = new ChildKills(config, tmp, PARTITIONS);
    long[] written;
    try (SteadyInput input = new SteadyInput(broker.bootstrapServers(), in, PARTITIONS, 20,
        (p, i) -> "p" + p + "-k" + (i % KEYS))) {
      kills.killRepeatedly(20, input, run -> {});
      written = input.stop();
    }
    kills.finish(written);

    Map<String, Long> model = windowCounts(written);
    Set<String> emitted = new HashSet<>();
    for (ConsumerRecord<String, String> r : readAll(broker.bootstrapServers(), out, false)) {
      emitted.add(r.key());
      assertThat(Long.parseLong(r.value())).as("the count of window %s (at %d@%d): a record "
          + "counted twice at most raises it", r.key(), r.partition(), r.offset())
          .isGreaterThanOrEqualTo(model.get(r.key()));
    }
    assertEveryClosedWindowEmitted(model, lastWatermark(written), emitted);
  }

  /** The model: each partition's own keys, counted per window of event time. */
  private static Map<String, Long> windowCounts(long[] written) {
    Map<String, Long> model = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      for (long i = 0; i < written[p]; i++) {
        long start = eventTime(p + ":" + i) / WINDOW_MS * WINDOW_MS;
        model.merge("p" + p + "-k" + (i % KEYS) + "@" + start, 1L, Long::sum);
      }
    }
    return model;
  }

  /** Where the last input leaves the job's watermark. */
  private static long lastWatermark(long[] written) {
    long watermark = Long.MAX_VALUE;
    for (int p = 0; p < PARTITIONS; p++) {
      watermark = Math.min(watermark, eventTime(p + ":" + (written[p] - 1)));
    }
    return watermark;
  }

  private static void assertEveryClosedWindowEmitted(Map<String, Long> model, long watermark,
      Set<String> emitted) {
    int closed = 0;
    for (String window : model.keySet()) {
      long start = Long.parseLong(window.substring(window.indexOf('@') + 1));
      if (start + 2 * WINDOW_MS <= watermark) { // closed a whole window before the input's end
        closed++;
        assertThat(emitted).as("a closed window's result").contains(window);
      }
    }
    assertThat(closed).as("windows the kills ran across").isGreaterThan(20 * KEYS);
  }

  @Test
  void aStreamStreamJoinKilledTwentyTimesEmitsEveryMatchExactlyOnce() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("dsl-eos-join-in");
    String out = topic("dsl-eos-join-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    Map<String, String> config = dslJob(broker, EvenOddJoin.class, in, out);

    ChildKills kills = new ChildKills(config, tmp, PARTITIONS);
    long[] written;
    try (SteadyInput input = new SteadyInput(broker.bootstrapServers(), in, PARTITIONS, 20,
        (p, i) -> "p" + p + "-k" + (i % JOIN_KEYS))) {
      kills.killRepeatedly(20, input, run -> {});
      written = input.stop();
    }
    kills.finish(written);

    // The model: each even i of a partition with the odd i - 25 and i + 25 that were written.
    Map<String, Integer> times = new HashMap<>();
    Map<String, String> where = new HashMap<>();
    for (ConsumerRecord<String, String> r : readAll(broker.bootstrapServers(), out, true)) {
      times.merge(r.value(), 1, Integer::sum);
      where.merge(r.value(), r.partition() + "@" + r.offset(), (a, b) -> a + ", " + b);
    }
    int expected = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      for (long i = 0; i < written[p]; i += 2) {
        for (long j : new long[] {i - JOIN_KEYS, i + JOIN_KEYS}) {
          if (j >= 0 && j < written[p]) {
            String pair = p + ":" + i + "&" + p + ":" + j;
            expected++;
            assertThat(times.get(pair)).as("times the match %s is in the committed output (at %s)",
                pair, where.get(pair)).isEqualTo(1);
          }
        }
      }
    }
    assertThat(times).as("nothing but the model's matches").hasSize(expected);
    assertThat(expected).as("matches the kills ran across").isGreaterThan(10_000);
  }

  /** A DSL job of {@code app} on the test broker, reading {@code in} and writing {@code out}. */
  private Map<String, String> dslJob(DevBroker broker, Class<? extends StreamApplication> app,
      String in, String out) {
    Map<String, String> config = new HashMap<>();
    config.put("job.name", "dsl-eos-" + in);
    config.put("job.state.dir", tmp.resolve("state").toString());
    config.put("app.class", app.getName());
    config.put("systems.kafka.bootstrap.servers", broker.bootstrapServers());
    config.put("systems.kafka.startup.timeout.ms", "20000");
    for (String[] stream : new String[][] {{"in", in}, {"out", out}}) {
      config.put("streams." + stream[0] + ".system", "kafka");
      config.put("streams." + stream[0] + ".physical.name", stream[1]);
      config.put("streams." + stream[0] + ".key.serde", "string");
      config.put("streams." + stream[0] + ".value.serde", "string");
    }
    config.put("task.processing.guarantee", "exactly-once");
    config.put("task.checkpoint.system", "kafka");
    return config;
  }
}
