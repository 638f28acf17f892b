package io.millrace.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.store.KeyValue;
import io.millrace.dsl.Grouped;
import io.millrace.dsl.MessageStream;
import io.millrace.dsl.Source;
import io.millrace.dsl.StreamApplication;
import io.millrace.dsl.StreamGraph;
import io.millrace.dsl.StreamJoined;
import io.millrace.dsl.Stored;
import io.millrace.dsl.serde.Serdes;
import io.millrace.dsl.window.JoinWindows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DSL job that re-keys its input through a Kafka repartition topic, then counts per new key,
 * re-groups the counts as a table into bands summed with a subtractor (a second repartition
 * topic), and joins the re-keyed stream with itself, run by three real processes (child JVMs)
 * under {@code job.coordinator=kafka} and exactly-once, one of them killed (SIGKILL) while input
 * arrives. The re-key sends every record to another task, mostly in another process, so the
 * counts, the totals and the join's matches are right only if the repartition topics, the stores
 * and their changelogs move with the tasks: a reader of committed data finds every count, every
 * band's total and every match exactly once, as a plain model of the input gives them. (Under
 * this coordinator at-least-once is transactional too, and passes the same checks; exactly-once
 * adds the stores' staging, which {@link DslExactlyOnceKillTest} proves under twenty kills.)
 */
class DslScaleOutTest {
  static final int TASKS = 6;
  /** New keys: record o of any partition goes to {@code r<o % NEW_KEYS>}. */
  static final int NEW_KEYS = 25;
  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp;

  /** The offset of a record the harness's feeder wrote ({@code p<partition>-<offset>}). */
  static long offsetOf(String value) {
    return Long.parseLong(value.substring(value.indexOf('-') + 1));
  }

  /**
   * Re-keys by offset, then counts per new key and joins each even offset with the odd ones of its
   * new key at most 60 ms of event time (2 ms a record) away: offsets o and o +- 25, from every
   * input partition. The grace is long: no record is late, whatever the kill holds back.
   */
  public static final class RekeyCountAndJoin implements StreamApplication {
    @Override
    public void describe(StreamGraph graph) {
      MessageStream<String, String> rekeyed = graph.stream(Source.<String, String>of("in")
              .withTimestamps((key, value, recordTime) -> 2 * offsetOf(value))
              .withMaxOutOfOrder(Duration.ZERO))
          .selectKey((key, value) -> "r" + offsetOf(value) % NEW_KEYS)
          .repartition("by-offset");
      MessageStream<String, Long> counts = rekeyed.groupByKey().count(Stored.as("counts"));
      counts.map((key, count) -> new KeyValue<>(key, Long.toString(count))).to("out");
      // The counts as a table re-grouped into bands (r<n> into b<n % 3>), summed with a
      // subtractor: each count's change moves its band's total on by one, through a second
      // repartition topic.
      counts.toTable()
          .groupBy((key, count) -> new KeyValue<>(bandOf(key), count),
              Grouped.with(Serdes.string(), Serdes.longs()))
          .reduce(Stored.as("band-totals"), Long::sum, (total, count) -> total - count)
          .toStream()
          .map((band, total) -> new KeyValue<>(band, Long.toString(total)))
          .to("totals");
      MessageStream<String, String> even = rekeyed.filter((k, v) -> offsetOf(v) % 2 == 0);
      MessageStream<String, String> odd = rekeyed.filter((k, v) -> offsetOf(v) % 2 != 0);
      even.join(odd, (l, r) -> l + "&" + r,
              JoinWindows.of(Duration.ofMillis(60)).grace(Duration.ofHours(1)),
              StreamJoined.<String, String, String>as("pairs")
                  .withValueSerdes(Serdes.string(), Serdes.string()))
          .to("pairs");
    }
  }

  /** The band of new key {@code r<n>}: {@code b<n % 3>}. */
  static String bandOf(String key) {
    return "b" + Integer.parseInt(key.substring(1)) % 3;
  }

  @Test
  void aRekeyedCountItsRegroupedTotalsAndAJoinAcrossThreeProcessesOneKilledHoldEveryResultOnce()
      throws Exception {
    try (ScaleOutHarness h = new ScaleOutHarness(tmp, TASKS)) {
      String pairs = KafkaTestSupport.topic("dsl-scale-pairs");
      String totals = KafkaTestSupport.topic("dsl-scale-totals");
      TestBroker.createTopic(h.bootstrap, h.out, TASKS);
      TestBroker.createTopic(h.bootstrap, pairs, TASKS);
      TestBroker.createTopic(h.bootstrap, totals, TASKS);
      for (String label : List.of("a", "b", "c")) {
        h.start(label, dslConfig(h, label, pairs, totals));
      }
      h.withLogsOnFailure(() -> {
        h.awaitCounts("2 tasks each", 2, 2, 2);
        h.feed();
        h.awaitProgress(new long[TASKS], 20);

        // A commit was just seen: the kill lands about half a commit interval of input later,
        // with the records b took since then neither committed nor aborted yet.
        long killAt = h.sentTotal() + 150;
        KafkaTestSupport.await(Duration.ofSeconds(30), "the feeder reaching record " + killAt,
            () -> h.sentTotal() >= killAt);
        h.kill("b"); // SIGKILL: no commit, no leave; its transaction open
        h.awaitCounts("the dead process's tasks on the other two", 3, 3);
        h.awaitProgress(h.checkpointed(), 20);
      });
      long[] sent = h.stopFeeding();
      Map<String, Long> model = countModel(sent);
      h.withLogsOnFailure(() -> {
        h.awaitProcessed(sent);
        KafkaTestSupport.await(Duration.ofSeconds(120), "every new key's final count out",
            () -> lastCounts(h.output()).equals(model));
      });
      h.stop("a");
      h.stop("c");

      Map<String, List<Long>> counts = new TreeMap<>();
      for (ConsumerRecord<String, String> r : h.output()) {
        counts.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(Long.parseLong(r.value()));
      }
      model.forEach((key, n) -> assertThat(counts.get(key))
          .as("the committed counts of %s: each once, in order", key).isEqualTo(oneTo(n)));
      assertThat(counts.keySet()).isEqualTo(model.keySet());

      // Each band's total moved on by one per record of its keys, each step committed once.
      h.awaitNoOpenTransactions(totals);
      Map<String, List<Long>> bandTotals = new TreeMap<>();
      for (ConsumerRecord<String, String> r : KafkaTestSupport.readAll(h.bootstrap, totals,
          true)) {
        bandTotals.computeIfAbsent(r.key(), k -> new ArrayList<>())
            .add(Long.parseLong(r.value()));
      }
      Map<String, Long> bandModel = new TreeMap<>();
      model.forEach((key, n) -> bandModel.merge(bandOf(key), n, Long::sum));
      bandModel.forEach((band, n) -> assertThat(bandTotals.get(band))
          .as("the committed totals of %s: each once, in order", band).isEqualTo(oneTo(n)));
      assertThat(bandTotals.keySet()).isEqualTo(bandModel.keySet());

      h.awaitNoOpenTransactions(pairs);
      Map<String, Integer> times = new HashMap<>();
      for (ConsumerRecord<String, String> r : KafkaTestSupport.readAll(h.bootstrap, pairs, true)) {
        times.merge(r.value(), 1, Integer::sum);
      }
      int expected = 0;
      for (int p = 0; p < TASKS; p++) {
        for (long i = 0; i < sent[p]; i += 2) {
          for (int q = 0; q < TASKS; q++) {
            for (long j : new long[] {i - NEW_KEYS, i + NEW_KEYS}) {
              if (j >= 0 && j < sent[q]) {
                String pair = "p" + p + "-" + i + "&p" + q + "-" + j;
                expected++;
                assertThat(times.get(pair)).as("times the match %s is in the committed output",
                    pair).isEqualTo(1);
              }
            }
          }
        }
      }
      assertThat(times).as("nothing but the model's matches").hasSize(expected);
      assertThat(expected).as("matches the kill ran across").isGreaterThan(5_000);
    }
  }

  /** The DSL job on the harness's topics, for process {@code label}. */
  private static Map<String, String> dslConfig(ScaleOutHarness h, String label, String pairs,
      String totals) {
    Map<String, String> c = new HashMap<>(h.config(label));
    c.keySet().removeIf(key -> key.startsWith("task.class") || key.startsWith("task.inputs")
        || key.startsWith("task.outputs") || key.startsWith("stores.counts."));
    c.put("app.class", RekeyCountAndJoin.class.getName());
    c.put("streams.pairs.system", "kafka");
    c.put("streams.pairs.physical.name", pairs);
    c.put("streams.totals.system", "kafka");
    c.put("streams.totals.physical.name", totals);
    for (String stream : List.of("in", "out", "pairs", "totals")) {
      c.put("streams." + stream + ".key.serde", "string");
      c.put("streams." + stream + ".value.serde", "string");
    }
    c.put("task.processing.guarantee", "exactly-once");
    return c;
  }

  /** Each new key's count over every record sent. */
  private static Map<String, Long> countModel(long[] sent) {
    Map<String, Long> model = new TreeMap<>();
    for (long n : sent) {
      for (long o = 0; o < n; o++) {
        model.merge("r" + o % NEW_KEYS, 1L, Long::sum);
      }
    }
    return model;
  }

  /** 1, 2, ..., n. */
  private static List<Long> oneTo(long n) {
    return LongStream.rangeClosed(1, n).boxed().toList();
  }

  /** The last count of each key in the committed output. */
  private static Map<String, Long> lastCounts(List<ConsumerRecord<String, String>> output) {
    Map<String, Long> last = new TreeMap<>();
    for (ConsumerRecord<String, String> r : output) {
      last.put(r.key(), Long.parseLong(r.value()));
    }
    return last;
  }
}
