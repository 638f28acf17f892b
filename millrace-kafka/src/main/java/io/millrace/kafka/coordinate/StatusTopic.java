package io.millrace.kafka.coordinate;

import io.millrace.kafka.settings.KafkaSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * Best effort and off the caller's thread: {@link #write} hands the record to one writer thread
 * (which creates the topic and its producer on first use), so a slow or unreachable broker never
 * holds a container's loop or a rebalance callback. A status that cannot be written is logged
 * once; the job goes on without it.
 */
final class StatusTopic implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusTopic.class);
  private final KafkaSettings settings;
  private final String topic;
  private final ExecutorService writer;
  private KafkaProducer<byte[], byte[]> producer; // writer thread only
  private volatile boolean broken;
  private volatile boolean written;

  StatusTopic(KafkaSettings settings, String groupId) {
    this.settings = settings;
    this.topic = ProcessStatus.topicOf(groupId);
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "millrace-status-" + groupId);
      t.setDaemon(true);
      return t;
    });
  }

  String topic() {
    return topic;
  }

  /** Writes a process's status (null: the process left); returns at once. */
  void write(String process, byte[] status) {
    if (broken || (status == null && !written)) {
      return; // nothing to take back when nothing was written
    }
    written = true;
    try {
      writer.execute(() -> send(process, status));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: the process is stopping
    }
  }

  private void send(String process, byte[] status) {
    if (broken) {
      return;
    }
    try {
      if (producer == null) {
        ensureTopic();
        Properties props = settings.producerProperties("millrace-status-" + process);
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        // A status is worth little once late: never wait long for metadata or buffer space.
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        producer = new KafkaProducer<>(props);
      }
      producer.send(new ProducerRecord<>(topic, 0, bytes(process), status), (m, e) -> {
        if (e != null && !(e instanceof org.apache.kafka.common.errors.RetriableException)) {
          giveUp(e);
        } else if (e != null) {
          LOG.debug("status not written to {}: {}", topic, e.toString());
        }
      });
    } catch (RuntimeException e) {
      giveUp(e);
    }
  }

  private void giveUp(Exception e) {
    if (!broken) {
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
          // Hourly segments: compaction never touches the active one, and each process rewrites
          // its record every few seconds, so a week-long default segment would keep them all.
          .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
              TopicConfig.SEGMENT_MS_CONFIG, "3600000"))))
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
    props.put("allow.auto.create.topics", "false"); // reading must not create it uncompacted
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
      if (consumer.position(tp) < end) {
        LOG.warn("status topic {}: read up to offset {} of {} within {} ms; what is shown may "
            + "be older", topic, consumer.position(tp), end, settings.startupTimeoutMs());
      }
    } catch (org.apache.kafka.common.errors.TimeoutException | IllegalStateException e) {
      LOG.warn("cannot read status topic {}: {}", topic, e.toString());
    }
    return statuses;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Sends what is queued (the process's tombstone last), then closes, within a few seconds. */
  @Override
  public void close() {
    writer.execute(() -> {
      if (producer != null) {
        producer.close(Duration.ofSeconds(5));
        producer = null;
      }
    });
    writer.shutdown();
    try {
      if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
        writer.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      writer.shutdownNow();
    }
  }
}
