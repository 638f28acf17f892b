package io.millrace.kafka.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.kafka.TestBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

class DevBrokerTest {
  @Test
  void aDeletedTopicsFilesLeaveTheDiskAtOnceNotAMinuteLater() throws Exception {
    DevBroker broker = TestBroker.shared();
    String topic = "deleted-" + System.nanoTime();
    TestBroker.createTopic(broker.bootstrapServers(), topic, 2);
    TestBroker.write(broker.bootstrapServers(), topic, 0, List.<String[]>of(new String[] {"k", "v"}));
    Path data = broker.dir().resolve("data");
    assertThat(until(10, () -> directoriesOf(data, topic) == 2)).as("its partitions on disk")
        .isTrue();

    try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
    // Kafka's default keeps them a minute (log.segment.delete.delay.ms): a benchmark's clean-up
    // of one run's topics then landed inside a later run.
    assertThat(until(15, () -> directoriesOf(data, topic) == 0))
        .as("the deleted topic's directories gone within 15 s").isTrue();
  }

  /** Whether the condition holds within the seconds given (checked every 50 ms). */
  private static boolean until(int seconds, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
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
