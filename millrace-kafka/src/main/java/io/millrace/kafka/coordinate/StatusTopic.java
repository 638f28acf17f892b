package io.millrace.kafka.coordinate;

import io.millrace.kafka.KafkaSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's status topic, {@code __millrace-status-<group>}: compacted, one partition, one record
 * per process (its label as key) that says what the process is doing ({@link ProcessStatus}).
 * Best effort: a status that cannot be written is logged once and dropped; the job goes on.
 */
final class StatusTopic implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusTopic.class);
  private final KafkaSettings settings;
  private final String topic;
  private KafkaProducer<byte[], byte[]> producer;
  private boolean broken;

  StatusTopic(KafkaSettings settings, String groupId) {
    this.settings = settings;
    this.topic = ProcessStatus.topicOf(groupId);
  }

  String topic() {
    return topic;
  }

  /** Writes a process's status (null: the process left), without waiting for it. */
  synchronized void write(String process, byte[] status) {
    if (broken) {
      return;
    }
    try {
      if (producer == null) {
        ensureTopic();
        Properties props = settings.producerProperties("millrace-status-" + process);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        producer = new KafkaProducer<>(props);
      }
      producer.send(new ProducerRecord<>(topic, 0, bytes(process), status), (m, e) -> {
        if (e != null) {
          LOG.warn("cannot write to status topic {}: {}", topic, e.toString());
        }
      });
    } catch (RuntimeException e) {
      broken = true;
      LOG.warn("cannot write the job's status to topic {} ({}): bin/millrace status will not "
          + "show this process", topic, e.toString());
    }
  }

  private void ensureTopic() {
    if (!settings.autoCreate()) {
      return;
    }
    try (Admin admin = Admin.create(settings.adminProperties("millrace-status-admin"))) {
      short replication = settings.checkpointReplication();
      admin.createTopics(List.of(new NewTopic(topic, java.util.Optional.of(1),
          replication < 0 ? java.util.Optional.empty() : java.util.Optional.of(replication))
          .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
          .all().get(settings.startupTimeoutMs(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException(e.getCause().toString(), e.getCause());
      }
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("no answer from " + settings.bootstrapServers(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Every process's latest status, by label; empty if the topic does not exist. */
  Map<String, ProcessStatus> read() {
    Map<String, ProcessStatus> statuses = new TreeMap<>();
    Properties props = settings.consumerProperties("millrace-status-reader");
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      if (consumer.partitionsFor(topic, Duration.ofMillis(settings.startupTimeoutMs()))
          .isEmpty()) {
        return statuses;
      }
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
          settings.startupTimeoutMs());
      while (consumer.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String process = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
          if (r.value() == null) {
            statuses.remove(process);
            continue;
          }
          try {
            statuses.put(process, ProcessStatus.decode(r.value()));
          } catch (IllegalArgumentException e) {
            LOG.warn("status topic {} offset {}: {}", topic, r.offset(), e.getMessage());
          }
        }
      }
    } catch (org.apache.kafka.common.errors.TimeoutException | IllegalStateException e) {
      LOG.warn("cannot read status topic {}: {}", topic, e.toString());
    }
    return statuses;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
      producer = null;
    }
  }
}
