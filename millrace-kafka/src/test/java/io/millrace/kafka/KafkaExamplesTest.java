package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.config.JobConfig;
import io.millrace.core.job.JobPlanner;
import io.millrace.core.job.LocalRunner;
import io.millrace.core.loop.Clock;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka example jobs of millrace-examples/jobs/kafka, run against the test broker. */
class KafkaExamplesTest {
  static final Path JOBS = Path.of("..", "millrace-examples", "jobs", "kafka");
  static final Path DATA = Path.of("..", "millrace-examples", "data");
  @TempDir Path state;

  private JobConfig load(String job, DevBroker broker, String... overrides) {
    List<String> sets = new ArrayList<>(List.of(
        "systems.kafka.bootstrap.servers=" + broker.bootstrapServers(),
        "job.state.dir=" + state.resolve(job)));
    sets.addAll(List.of(overrides));
    return io.millrace.core.config.JobFile.load(JOBS.resolve(job), sets); // as the command line reads it
  }

  /** Each key's last count in a topic of counts (values are longs: value.serde=long). */
  private static Map<String, Long> lastCounts(DevBroker broker, String topic) {
    Map<String, Long> last = new HashMap<>();
    for (ConsumerRecord<String, Long> r : readLongs(broker.bootstrapServers(), topic, false)) {
      last.put(r.key(), r.value());
    }
    return last;
  }

  private static long sum(Map<String, Long> counts) {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  @Test
  void theTwoStageWordCountCountsEveryWordOfTheText() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String words = topic("words");
    String counts = topic("word-counts");
    long split = LocalRunner.runToEnd(JobPlanner.plan(load("wordcount-split.properties", broker,
        "streams.lines.physical.name=" + DATA.resolve("moby-dick-loomings.txt"),
        "streams.words.physical.name=" + words)));
    assertThat(split).as("lines read").isGreaterThan(50);
    int wordCount = readAll(broker.bootstrapServers(), words).size();

    LocalRunner count = new LocalRunner(JobPlanner.plan(load("wordcount-count.properties", broker,
        "streams.words.physical.name=" + words, "streams.counts.physical.name=" + counts,
        "task.window.ms=100", "systems.kafka.checkpoint.topic=" + topic("checkpoints"))),
        Clock.SYSTEM);
    count.start();
    await(Duration.ofSeconds(120), "every word counted", () -> count.processed() >= wordCount);
    // The counts go out at each window: the window after the last word sends the final ones.
    await(Duration.ofSeconds(120), "the final counts, summing to every word",
        () -> sum(lastCounts(broker, counts)) == wordCount);
    stop(count);

    Map<String, Long> last = lastCounts(broker, counts);
    assertThat(sum(last)).isEqualTo(wordCount);
    assertThat(last).containsKey("whale");
  }

  @Test
  void pageViewsLoadedIntoKafkaAreEnrichedInOrderPerUser() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String pageviews = topic("pageviews");
    String enriched = topic("pageviews-enriched");
    List<String> lines = Files.readAllLines(DATA.resolve("pageviews-large.csv"));
    long loaded = LocalRunner.runToEnd(JobPlanner.plan(load("pageviews-load.properties", broker,
        "streams.lines.physical.name=" + DATA.resolve("pageviews-large.csv"),
        "streams.out.physical.name=" + pageviews)));
    assertThat(loaded).isEqualTo(lines.size());

    LocalRunner enrich = new LocalRunner(JobPlanner.plan(load("pageviews-async.properties",
        broker, "streams.pageviews.physical.name=" + pageviews,
        "streams.enriched.physical.name=" + enriched,
        "systems.kafka.checkpoint.topic=" + topic("checkpoints"))), Clock.SYSTEM);
    enrich.start();
    // processed() counts views handed to the task; the output shows which calls completed.
    await(Duration.ofSeconds(120), "every view enriched",
        () -> readAll(broker.bootstrapServers(), enriched).size() >= loaded);
    stop(enrich);

    List<ConsumerRecord<String, String>> out = readAll(broker.bootstrapServers(), enriched);
    assertThat(out).hasSize(lines.size());
    Map<String, List<String>> expectedByUser = new HashMap<>();
    for (String line : lines) {
      String[] f = line.split(",", 2);
      expectedByUser.computeIfAbsent(f[0], u -> new ArrayList<>()).add(f[1]);
    }
    Map<String, List<String>> pagesByUser = new HashMap<>();
    for (ConsumerRecord<String, String> r : out) {
      String value = r.value();
      pagesByUser.computeIfAbsent(r.key(), u -> new ArrayList<>())
          .add(value.substring(0, value.lastIndexOf(',')));
    }
    assertThat(pagesByUser).as("each user's views, enriched in order").isEqualTo(expectedByUser);
  }

  @Test
  void pageViewsAreCountedPerUserInARocksDbStoreWithAKafkaChangelog() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String pageviews = topic("pageviews");
    String counts = topic("pageview-counts");
    String changelog = topic("count-by-key-changelog");
    List<String> lines = Files.readAllLines(DATA.resolve("pageviews-large.csv"));
    LocalRunner.runToEnd(JobPlanner.plan(load("pageviews-load.properties", broker,
        "streams.lines.physical.name=" + DATA.resolve("pageviews-large.csv"),
        "streams.out.physical.name=" + pageviews)));
    Map<String, Long> expected = new HashMap<>();
    for (String line : lines) {
      expected.merge(line.substring(0, line.indexOf(',')), 1L, Long::sum);
    }

    LocalRunner count = new LocalRunner(JobPlanner.plan(load("count-by-key.properties", broker,
        "streams.views.physical.name=" + pageviews, "streams.out.physical.name=" + counts,
        "stores.counts.changelog=kafka." + changelog, "task.window.ms=100",
        "systems.kafka.checkpoint.topic=" + topic("checkpoints"))), Clock.SYSTEM);
    count.start();
    await(Duration.ofSeconds(120), "every view counted",
        () -> count.processed() >= lines.size());
    await(Duration.ofSeconds(120), "the final counts (the window after the last view)",
        () -> lastCounts(broker, counts).equals(expected));
    stop(count);

    assertThat(lastCounts(broker, counts)).isEqualTo(expected);
    assertThat(readAll(broker.bootstrapServers(), changelog)).as("the changelog holds every user")
        .extracting(ConsumerRecord::key).containsAll(expected.keySet());
  }
}
