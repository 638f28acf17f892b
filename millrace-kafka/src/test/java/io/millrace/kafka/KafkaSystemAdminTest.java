package io.millrace.kafka;

import static io.millrace.kafka.KafkaTestSupport.topic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.kafka.admin.KafkaSystemAdmin;
import io.millrace.kafka.dev.DevBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The heads a restore and a bootstrap read up to: asked for now, in one request per stream. */
class KafkaSystemAdminTest {
  @Test
  void aHeadIsThePartitionsHeadNowNotOneRememberedFromAMomentAgo() {
    DevBroker broker = TestBroker.shared();
    String t = topic("admin-head");
    TestBroker.createTopic(broker.bootstrapServers(), t, 3);
    StreamSpec spec = new StreamSpec("log", t, null, null);
    try (KafkaSystemAdmin admin = admin(broker, t, false)) {
      assertThat(admin.metadata(spec, 0).upcoming()).isZero();
      // Written right after: a task that moves twice within a second restores up to here.
      TestBroker.write(broker.bootstrapServers(), t, 0, List.of(new String[] {"k", "1"},
          new String[] {"k", "2"}));
      StreamMetadata head = admin.metadata(spec, 0);
      assertThat(head.upcoming()).isEqualTo(2);
      assertThat(head.newest()).isEqualTo(1);
      assertThat(head.oldest()).isZero();

      Map<Integer, StreamMetadata> all = admin.metadata(spec, List.of(0, 1, 2));
      assertThat(all).containsOnlyKeys(0, 1, 2);
      assertThat(all.get(0).upcoming()).isEqualTo(2);
      assertThat(all.get(1).isEmpty()).isTrue();
      assertThat(all.get(2).upcoming()).isZero();
    }
  }

  @Test
  void underTransactionsTheHeadIsTheLastStableOffsetAndMovesOnceTheCommitIsMarked()
      throws InterruptedException {
    DevBroker broker = TestBroker.shared();
    String t = topic("admin-lso");
    TestBroker.createTopic(broker.bootstrapServers(), t, 1);
    StreamSpec spec = new StreamSpec("log", t, null, null);
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put("transactional.id", t);
    try (KafkaSystemAdmin admin = admin(broker, t, true);
        KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
            new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(t, 0, "k", "1"));
      producer.send(new ProducerRecord<>(t, 0, "k", "2"));
      producer.flush();
      assertThat(admin.metadata(spec, 0).upcoming()).as("open transaction").isZero();
      producer.commitTransaction();
      // The markers are written after the commit returns: the restorer waits for them the same
      // way. Two records and the commit marker.
      KafkaTestSupport.await(Duration.ofSeconds(30), "the commit marker",
          () -> admin.metadata(spec, 0).upcoming() == 3);
    }
  }

  @Test
  void aPartitionThatDoesNotExistIsAnErrorNamingTheTopic() {
    DevBroker broker = TestBroker.shared();
    String t = topic("admin-missing");
    TestBroker.createTopic(broker.bootstrapServers(), t, 1);
    try (KafkaSystemAdmin admin = admin(broker, t, false)) {
      assertThatThrownBy(() -> admin.metadata(new StreamSpec("log", t, null, null), 4))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(t)
          .hasMessageContaining("[4]");
      assertThatThrownBy(() -> admin.metadata(new StreamSpec("x", t + "-none", null, null), 0))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(t + "-none");
    }
  }

  private static KafkaSystemAdmin admin(DevBroker broker, String name, boolean readCommitted) {
    Map<String, String> c = KafkaTestSupport.job(broker.bootstrapServers(), name,
        UpperCaseTask.class, name, null, "unused");
    c.put("systems.kafka.startup.timeout.ms", "5000");
    return new KafkaSystemAdmin(KafkaTestSupport.settings(c), name + "-admin", readCommitted);
  }
}
