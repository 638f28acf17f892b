package io.millrace.bench.kafka;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The least any runtime on kafka-clients can do for a pass-through (issue 35): one consumer and
 * one producer on one thread, poll, send every record to the output topic (key and value as
 * read, partitioned by key), and commit the consumed offsets every commit interval. {@code bare}
 * is at-least-once: flush the producer, then {@code commitSync} the offsets. {@code bare-eos}
 * sends in a transaction, adds the offsets to it ({@code sendOffsetsToTransaction} with the
 * consumer's group metadata) and commits it every interval, reading {@code read_committed}.
 *
 * <p>{@code bare-split} is {@code bare} with polling and sending on two threads, batches handed
 * over through a small bounded queue: the shape of any runtime with a fetch thread, to measure
 * what the split itself costs. Its offsets are committed once, at the end (the consumer belongs
 * to the fetch thread; at Millrace's 60 s default a 5M-record run commits only then anyway).
 *
 * <p>The client settings are Millrace's defaults (KafkaSettings: {@code max.poll.records=10000},
 * {@code batch.size=262144}, {@code linger.ms=5}), so that the distance to Millrace's own
 * pass-through is the runtime's cost, not a different tuning.
 */
final class BareClient {
  private BareClient() {}

  /**
   * Copies {@code records} records of {@code topic} to a new topic with as many partitions.
   *
   * @return {records/s from the first record to the last, records/s from start to the last
   *     commit, this JVM's CPU microseconds per record}
   */
  static double[] run(String bootstrap, String topic, long records, boolean exactlyOnce,
      long commitMs) throws Exception {
    return run(bootstrap, topic, records, exactlyOnce, commitMs, false);
  }

  /** As {@link #run(String, String, long, boolean, long)}; {@code split}: {@code bare-split}. */
  static double[] run(String bootstrap, String topic, long records, boolean exactlyOnce,
      long commitMs, boolean split) throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    String out = "bench-out-bare-" + run;
    try {
      return split ? copySplit(bootstrap, topic, out, run, records)
          : copy(bootstrap, topic, out, run, records, exactlyOnce, commitMs);
    } finally {
      BenchTopics.deleteRunTopics(bootstrap, run);
    }
  }

  private static double[] copy(String bootstrap, String topic, String out, String run,
      long records, boolean exactlyOnce, long commitMs) throws Exception {
    long cpu0 = cpuNanos();
    long start = System.nanoTime();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(
            bootstrap, run, exactlyOnce), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(
            bootstrap, run, exactlyOnce), new ByteArraySerializer(), new ByteArraySerializer())) {
      assignFromTheStart(consumer, bootstrap, topic, out);
      if (exactlyOnce) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      long commitNanos = TimeUnit.MILLISECONDS.toNanos(commitMs);
      long nextCommit = System.nanoTime() + commitNanos;
      long first = 0;
      long count = 0;
      while (count < records) {
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
        if (first == 0 && !batch.isEmpty()) {
          first = System.nanoTime();
        }
        count += sendAll(batch, producer, out, offsets);
        if (System.nanoTime() >= nextCommit) {
          commit(consumer, producer, offsets, exactlyOnce, true);
          nextCommit = System.nanoTime() + commitNanos;
        }
      }
      long last = System.nanoTime();
      commit(consumer, producer, offsets, exactlyOnce, false);
      long end = System.nanoTime();
      return new double[] {records / ((last - first) / 1e9), records / ((end - start) / 1e9),
          (cpuNanos() - cpu0) / 1e3 / records};
    }
  }

  private static double[] copySplit(String bootstrap, String topic, String out, String run,
      long records) throws Exception {
    long cpu0 = cpuNanos();
    long start = System.nanoTime();
    BlockingQueue<ConsumerRecords<byte[], byte[]>> handoff = new ArrayBlockingQueue<>(4);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(
            bootstrap, run, false), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(
            bootstrap, run, false), new ByteArraySerializer(), new ByteArraySerializer())) {
      assignFromTheStart(consumer, bootstrap, topic, out);
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(); // this thread's only
      AtomicBoolean done = new AtomicBoolean();
      Thread fetch = new Thread(() -> {
        try {
          while (!done.get()) {
            ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
            if (!batch.isEmpty()) {
              handoff.put(batch);
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "bare-fetch");
      fetch.start();
      long first = 0;
      long count = 0;
      while (count < records) {
        ConsumerRecords<byte[], byte[]> batch = handoff.take();
        if (first == 0) {
          first = System.nanoTime();
        }
        count += sendAll(batch, producer, out, offsets);
      }
      long last = System.nanoTime();
      done.set(true);
      handoff.clear(); // a fetch thread blocked on a full queue gets its room and sees done
      fetch.join();
      producer.flush();
      consumer.commitSync(offsets);
      long end = System.nanoTime();
      return new double[] {records / ((last - first) / 1e9), records / ((end - start) / 1e9),
          (cpuNanos() - cpu0) / 1e3 / records};
    }
  }

  /**
   * Sends every record of {@code batch} to {@code out}, key and value as read, and notes each
   * partition's next offset in {@code offsets}; returns how many it sent.
   */
  private static int sendAll(ConsumerRecords<byte[], byte[]> batch,
      KafkaProducer<byte[], byte[]> producer, String out,
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    for (TopicPartition partition : batch.partitions()) {
      List<ConsumerRecord<byte[], byte[]>> some = batch.records(partition);
      for (ConsumerRecord<byte[], byte[]> r : some) {
        producer.send(new ProducerRecord<>(out, r.key(), r.value()));
      }
      offsets.put(partition, new OffsetAndMetadata(some.get(some.size() - 1).offset() + 1));
    }
    return batch.count();
  }

  /** Assigns every partition of {@code topic} from its start; makes {@code out} as wide. */
  private static void assignFromTheStart(KafkaConsumer<byte[], byte[]> consumer,
      String bootstrap, String topic, String out) throws Exception {
    List<TopicPartition> partitions = new ArrayList<>();
    consumer.partitionsFor(topic, Duration.ofSeconds(30)).forEach(info ->
        partitions.add(new TopicPartition(topic, info.partition())));
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(out, partitions.size(), (short) 1)))
          .all().get(30, TimeUnit.SECONDS);
    }
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  private static void commit(KafkaConsumer<byte[], byte[]> consumer,
      KafkaProducer<byte[], byte[]> producer, Map<TopicPartition, OffsetAndMetadata> offsets,
      boolean exactlyOnce, boolean another) {
    if (exactlyOnce) {
      producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
      producer.commitTransaction();
      if (another) {
        producer.beginTransaction();
      }
    } else {
      producer.flush(); // every record sent before the offsets that follow them
      consumer.commitSync(offsets);
    }
  }

  private static Properties consumerProperties(String bootstrap, String run,
      boolean exactlyOnce) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", "bench-bare-" + run); // offsets are committed to it; no subscription
    p.put("enable.auto.commit", "false");
    p.put("max.poll.records", "10000");
    if (exactlyOnce) {
      p.put("isolation.level", "read_committed");
    }
    return p;
  }

  private static Properties producerProperties(String bootstrap, String run,
      boolean exactlyOnce) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("batch.size", "262144");
    p.put("linger.ms", "5");
    if (exactlyOnce) {
      p.put("transactional.id", "bench-bare-" + run);
    }
    return p;
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
