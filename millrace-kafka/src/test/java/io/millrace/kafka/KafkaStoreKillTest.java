package io.millrace.kafka;

import io.millrace.kafka.settings.KafkaSettings;
import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.api.Collector;
import io.millrace.api.TaskCoordinator;
import io.millrace.api.Envelope;
import io.millrace.api.InitableTask;
import io.millrace.api.StreamPartition;
import io.millrace.api.StreamTask;
import io.millrace.api.TaskContext;
import io.millrace.api.store.KeyValueStore;
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
 * A counting job with a RocksDB store and a changelog on Kafka is killed (SIGKILL, child JVM) while
 * its changelog runs ahead of its checkpoint (mid-commit, or between a flush and the commit); the
 * restart restores the store from its local files and the changelog's tail. No acknowledged update
 * is lost: every count is at least a clean run's, and exceeds it only by the messages after the
 * last checkpoint, which are processed again.
 */
class KafkaStoreKillTest {
  static final int PARTITIONS = 2;
  static final int PER_PARTITION = 20_000;
  static final int KEYS = 500;
  @TempDir Path tmp;

  /**
   * Counts keys in the RocksDB store "counts"; slow, so that the test's samples of the
   * checkpoint and the changelog (a round trip each) find the run mid-input on a busy machine
   * too (at a millisecond per 200 records a busy run was sampled only before and after).
   */
  public static final class CountingTask implements StreamTask, InitableTask {
    private KeyValueStore<String, Long> counts;

    @Override
    public void init(TaskContext context) {
      counts = context.store("counts");
    }

    @Override
    public void process(Envelope envelope, Collector collector, TaskCoordinator coordinator)
        throws InterruptedException {
      String key = (String) envelope.key();
      Long count = counts.get(key);
      counts.put(key, count == null ? 1 : count + 1);
      if (envelope.offset() % 10 == 0) {
        Thread.sleep(1); // 40,000 records take 4 s at least: many samples land mid-input
      }
    }
  }

  @Test
  void killNineWhileTheChangelogIsAheadOfTheCheckpointLosesNoUpdate() throws Throwable {
    DevBroker broker = TestBroker.shared();
    String in = topic("store-in");
    String changelog = topic("counts-changelog");
    TestBroker.createTopic(broker.bootstrapServers(), in, PARTITIONS);
    for (int p = 0; p < PARTITIONS; p++) {
      List<String[]> records = new ArrayList<>();
      for (int i = 0; i < PER_PARTITION; i++) {
        records.add(new String[] {"k" + ((i * PARTITIONS + p) % KEYS), "v"});
      }
      TestBroker.write(broker.bootstrapServers(), in, p, records);
    }
    String jobName = "store-kill-" + in;
    Map<String, String> config = job(broker.bootstrapServers(), jobName, CountingTask.class, in,
        null, tmp.resolve("state").toString());
    config.put("task.checkpoint.system", "kafka");
    config.put("task.commit.ms", "150");
    config.put("stores.counts.factory", "rocksdb");
    config.put("stores.counts.value.serde", "long");
    config.put("stores.counts.changelog", "kafka." + changelog);
    config.put("stores.counts.write.batch.size", "100"); // flushes between commits too
    Process child = startChild(config, tmp);
    KafkaSettings settings = KafkaTestSupport.settings(config);
    try {
      await(Duration.ofSeconds(120), "the changelog ahead of a checkpoint mid-input", () -> {
        if (!child.isAlive()) {
          throw new AssertionError("the child died: " + childLog(tmp));
        }
        Map<StreamPartition, Long> checkpoint = readCheckpoint(settings, jobName);
        long inputDone = 0;
        long changelogCheckpointed = 0;
        for (Map.Entry<StreamPartition, Long> e : checkpoint.entrySet()) {
          if (e.getKey().stream().equals("in")) {
            inputDone += e.getValue() + 1;
          } else {
            changelogCheckpointed += e.getValue() + 1;
          }
        }
        long changelogEnd = endOffsets(broker.bootstrapServers(), changelog);
        return inputDone > 5_000 && changelogEnd > changelogCheckpointed;
      }, () -> "the checkpoint " + readCheckpoint(settings, jobName) + ", the changelog's end "
          + endOffsets(broker.bootstrapServers(), changelog) + "; the child said: "
          + childLog(tmp));
    } finally {
      child.destroyForcibly(); // SIGKILL: no final commit
      child.waitFor(30, TimeUnit.SECONDS);
    }
    Map<StreamPartition, Long> atKill = readCheckpoint(settings, jobName);

    LocalRunner restarted = start(config);
    await(Duration.ofSeconds(120), "every message processed", () -> {
      Map<StreamPartition, Long> now = readCheckpoint(settings, jobName);
      for (int p = 0; p < PARTITIONS; p++) {
        Long done = now.get(new StreamPartition("kafka", "in", p));
        if (done == null || done < PER_PARTITION - 1) {
          return false;
        }
      }
      return true;
    });
    stop(restarted);

    Map<String, Long> counts = new HashMap<>();
    for (ConsumerRecord<String, Long> r : readLongs(broker.bootstrapServers(), changelog,
        false)) {
      counts.put(r.key(), r.value());
    }
    // Messages of each key processed again: those after the checkpoint at the kill.
    Map<String, Long> again = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      long checkpointed = atKill.getOrDefault(new StreamPartition("kafka", "in", p), -1L);
      for (long i = checkpointed + 1; i < PER_PARTITION; i++) {
        again.merge("k" + ((i * PARTITIONS + p) % KEYS), 1L, Long::sum);
      }
    }
    long clean = (long) PARTITIONS * PER_PARTITION / KEYS;
    assertThat(counts).hasSize(KEYS);
    for (int k = 0; k < KEYS; k++) {
      String key = "k" + k;
      assertThat(counts.get(key)).as("count of %s", key)
          .isBetween(clean, clean + again.getOrDefault(key, 0L));
    }
  }



  private static long endOffsets(String bootstrap, String topic) {
    try (var admin = org.apache.kafka.clients.admin.Admin.create(
        Map.of("bootstrap.servers", bootstrap))) {
      var names = admin.listTopics().names().get(10, TimeUnit.SECONDS);
      if (!names.contains(topic)) {
        return 0;
      }
      int n = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
          .get(topic).partitions().size();
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> spec =
          new HashMap<>();
      for (int p = 0; p < n; p++) {
        spec.put(new org.apache.kafka.common.TopicPartition(topic, p),
            org.apache.kafka.clients.admin.OffsetSpec.latest());
      }
      long sum = 0;
      for (var info : admin.listOffsets(spec).all().get(10, TimeUnit.SECONDS).values()) {
        sum += info.offset();
      }
      return sum;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
