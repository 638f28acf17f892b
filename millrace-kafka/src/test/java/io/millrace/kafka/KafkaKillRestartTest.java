package io.millrace.kafka;

import io.millrace.kafka.settings.KafkaSettings;
import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka job with its checkpoints on Kafka is killed (SIGKILL, in a child JVM) mid-input; the
 * restart resumes from the checkpoint topic: nothing is lost, and only records after the last
 * checkpoint are written twice.
 */
class KafkaKillRestartTest {
  static final int PARTITIONS = 2;
  static final int PER_PARTITION = 20_000;
  static final String CRAWL_FROM_PROPERTY = "millrace.test.crawlFrom";
  @TempDir Path tmp;

  /**
   * Copies each record, a little slowly; in the child, the second half of each partition crawls
   * (50 ms a record), so the kill lands mid-input after some commits however busy the machine
   * (a busy one once let the child finish all 40,000 before the test's first look).
   */
  public static final class SlowCopyTask implements StreamTask {
    private static final long CRAWL_FROM = Long.getLong(CRAWL_FROM_PROPERTY, Long.MAX_VALUE);

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      collector.send("out", envelope.partition(), envelope.key(), envelope.value());
      if (envelope.offset() >= CRAWL_FROM) {
        Thread.sleep(50);
      } else if (envelope.offset() % 100 == 0) {
        Thread.sleep(1);
      }
    }
  }

  @Test
  void killNineThenRestartFromTheCheckpointTopicLosesNothing() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("kill-in");
    String out = topic("kill-out");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    for (int p = 0; p < PARTITIONS; p++) {
      List<String[]> records = new ArrayList<>();
      for (int i = 0; i < PER_PARTITION; i++) {
        records.add(new String[] {"k" + i, p + ":" + i});
      }
      TestBroker.write(broker.bootstrapServers(), in, p, records);
    }
    String jobName = "kill-" + in;
    Map<String, String> config = job(broker.bootstrapServers(), jobName, SlowCopyTask.class, in,
        out, tmp.resolve("state").toString());
    config.put("task.checkpoint.system", "kafka");
    config.put("task.commit.ms", "100");
    Process child = startChild(config, tmp,
        "-D" + CRAWL_FROM_PROPERTY + "=" + PER_PARTITION / 2);
    KafkaSettings settings = KafkaTestSupport.settings(config);
    try {
      await(Duration.ofSeconds(90), "a few checkpoints and some output", () -> {
        if (!child.isAlive()) {
          throw new AssertionError("the child died: " + childLog(tmp));
        }
        Map<StreamPartition, Long> checkpoint = readCheckpoint(settings, jobName);
        return checkpoint.values().stream().mapToLong(Long::longValue).sum() > 4_000;
      });
    } finally {
      child.destroyForcibly(); // SIGKILL: no final commit
      child.waitFor(30, TimeUnit.SECONDS);
    }
    Map<StreamPartition, Long> committed = readCheckpoint(settings, jobName);
    assertThat(committed.values()).allSatisfy(o -> assertThat(o).isLessThan(PER_PARTITION - 1));

    LocalRunner restarted = start(config);
    await(Duration.ofSeconds(90), "the rest processed", () -> {
      Map<StreamPartition, Long> now = readCheckpoint(settings, jobName);
      return now.size() == PARTITIONS
          && now.values().stream().allMatch(o -> o == PER_PARTITION - 1);
    });
    stop(restarted);

    Map<String, Integer> times = new HashMap<>();
    List<ConsumerRecord<String, String>> written = readAll(broker.bootstrapServers(), out);
    for (ConsumerRecord<String, String> r : written) {
      times.merge(r.value(), 1, Integer::sum);
    }
    int duplicates = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      long checkpointed = committed.getOrDefault(new StreamPartition("kafka", "in", p), -1L);
      for (int i = 0; i < PER_PARTITION; i++) {
        Integer n = times.get(p + ":" + i);
        assertThat(n).as("record %d:%d is written", p, i).isNotNull();
        if (i <= checkpointed) {
          assertThat(n).as("%d:%d was before the checkpoint: written once", p, i).isEqualTo(1);
        }
        duplicates += n - 1;
      }
    }
    // Only what the first run wrote after its last checkpoint comes again: less than one commit
    // interval's worth (100 ms of a task that does ~1 record / 10 us).
    assertThat(duplicates).isLessThan(PARTITIONS * PER_PARTITION / 2);
  }


}
