package io.millrace.kafka.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.testing.Await;
import io.millrace.kafka.TestBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

class DevBrokerTest {
  @Test
  void aDeletedTopicsFilesLeaveTheDiskAtOnceNotAMinuteLater() throws Exception {
    DevBroker broker = TestBroker.shared();
    String topic = "deleted-" + System.nanoTime();
    TestBroker.createTopic(broker.bootstrapServers(), topic, 2);
    TestBroker.write(broker.bootstrapServers(), topic, 0,
        List.<String[]>of(new String[] {"k", "v"}));
    Path data = broker.dir().resolve("data");
    Await.until(Await.DEADLINE, "its partitions on disk",
        () -> directoriesOf(data, topic) == 2);

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
    // Kafka's default keeps them a minute (log.segment.delete.delay.ms): a benchmark's clean-up
    // of one run's topics then landed inside a later run.
    // (A deadline under that minute, sized for a busy machine.)
    Await.until(Duration.ofSeconds(45), "the deleted topic's directories gone",
        () -> directoriesOf(data, topic) == 0);
  }

  @Test
  void topicsKeepRecordsStampedLongAgoForNoDeletionByAgeApplies() throws Exception {
    DevBroker broker = TestBroker.shared();
    String topic = "old-stamps-" + System.nanoTime();
    TestBroker.createTopic(broker.bootstrapServers(), topic, 1);
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
          .get(resource);
      // A window's result stamped with its event time (1970 in the tests) is not deleted by age.
      assertThat(config.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("-1");
    }
  }

  /** The partition directories of a topic, live or renamed for deletion ({@code ...-delete}). */
  private static long directoriesOf(Path data, String topic) {
    try (Stream<Path> dirs = Files.list(data)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith(topic + "-")).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
