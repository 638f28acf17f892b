package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.millrace.core.job.LocalRunner;
import io.millrace.kafka.dev.DevBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker is killed and restarted while a job reads and writes through it: the job waits,
 * recovers on its own, and every record reaches the output.
 */
class KafkaBrokerRestartTest {
  static final int RECORDS = 6_000;
  @TempDir Path state;

  @Test
  void aJobRecoversFromABrokerRestartAndLosesNothing() throws Throwable {
    try (DevBroker broker = TestBroker.dedicated("restart")) {
      String in = topic("restart-in");
      String out = topic("restart-out");
      TestBroker.createTopic(broker.bootstrapServers(), in, 2);
      Map<String, String> config = job(broker.bootstrapServers(), "broker-restart",
          UpperCaseTask.class, in, out, state.toString());
      config.put("task.commit.ms", "200");
      config.put("task.checkpoint.system", "kafka");
      LocalRunner runner = start(config);

      // A feed that keeps writing through the outage (its sends wait and retry).
      AtomicReference<Throwable> feedFailure = new AtomicReference<>();
      Thread feed = new Thread(() -> {
        try (KafkaProducer<String, String> producer = TestBroker.producer(
            broker.bootstrapServers())) {
          for (int i = 0; i < RECORDS; i++) {
            producer.send(new ProducerRecord<>(in, i % 2, "k" + i, "v" + i));
            if (i % 100 == 0) {
              Thread.sleep(10);
            }
          }
          producer.flush();
        } catch (Throwable e) {
          feedFailure.set(e);
        }
      }, "feed");
      feed.start();
      await(Duration.ofSeconds(60), "some records processed", () -> runner.processed() > 1_000);

      broker.kill();
      Thread.sleep(1_000);
      broker.restart(Duration.ofSeconds(90));

      feed.join(120_000);
      assertThat(feedFailure.get()).isNull();
      await(Duration.ofSeconds(120), "every record processed",
          () -> runner.processed() >= RECORDS);
      stop(runner);

      Set<String> values = new HashSet<>();
      for (ConsumerRecord<String, String> r : readAll(broker.bootstrapServers(), out)) {
        values.add(r.value());
      }
      for (int i = 0; i < RECORDS; i++) {
        assertThat(values).as("output holds record %d", i).contains("V" + i);
      }
    }
  }
}
