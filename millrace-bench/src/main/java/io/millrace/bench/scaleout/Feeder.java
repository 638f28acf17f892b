package io.millrace.bench.scaleout;

import java.nio.ByteBuffer;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a scale-out job's input: 8-byte keys from {@code [0, keys)}, each key always on partition
 * {@code key % partitions} (so a task's keys stay its own), 8-byte values. {@link #prefill} writes
 * every key once, as fast as it can; {@link #start} then writes random keys at a steady rate until
 * closed, so every task always has input and an output gap means the task stopped.
 */
final class Feeder implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;
  private final int partitions;
  private final long keys;
  private Thread thread;
  private volatile boolean running;

  Feeder(String bootstrap, String topic, int partitions, long keys) {
    this(bootstrap, topic, partitions, keys, 5, 262_144);
  }

  /** Producer settings for writing a lot fast: acks from the leader only, batched. */
  static Properties producerConfig(String bootstrap, int lingerMs, int batchBytes) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "1");
    p.put("linger.ms", Integer.toString(lingerMs));
    p.put("batch.size", Integer.toString(batchBytes));
    p.put("buffer.memory", Long.toString(128L << 20));
    return p;
  }

  /** A feeder for {@link #fill} only: larger batches, for a backlog of many records. */
  static Feeder bulk(String bootstrap, String topic, int partitions, long keys) {
    return new Feeder(bootstrap, topic, partitions, keys, 20, 1 << 20);
  }

  private Feeder(String bootstrap, String topic, int partitions, long keys, int lingerMs,
      int batchBytes) {
    Properties p = producerConfig(bootstrap, lingerMs, batchBytes);
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    this.topic = topic;
    this.partitions = partitions;
    this.keys = keys;
  }

  /** Writes each key once and waits until the broker has them all. */
  void prefill() {
    for (long k = 0; k < keys; k++) {
      send(k);
    }
    producer.flush();
  }

  /** Writes {@code records} records round robin over the partitions, keys cycling, and flushes. */
  void fill(long records) {
    for (long i = 0; i < records; i++) {
      send(i % keys);
    }
    producer.flush();
  }

  /**
   * Writes {@code records} records to the partitions {@code which} accepts, keys cycling over
   * theirs, and flushes.
   */
  void fill(long records, java.util.function.IntPredicate which) {
    for (long i = 0, k = 0; i < records; k++) {
      if (which.test((int) ((k % keys) % partitions))) {
        send(k % keys);
        i++;
      }
    }
    producer.flush();
  }

  private void send(long key) {
    byte[] k = ByteBuffer.allocate(8).putLong(key).array();
    producer.send(new ProducerRecord<>(topic, (int) (key % partitions), k, k));
  }

  /** Writes {@code perSecond} random-key records a second, in 10 ms slices, until closed. */
  void start(long perSecond) {
    running = true;
    long perSlice = Math.max(1, perSecond / 100);
    thread = new Thread(() -> {
      long next = System.nanoTime();
      while (running) {
        for (long i = 0; i < perSlice; i++) {
          send(ThreadLocalRandom.current().nextLong(keys));
        }
        next += TimeUnit.MILLISECONDS.toNanos(10);
        long wait = next - System.nanoTime();
        if (wait > 0) {
          try {
            TimeUnit.NANOSECONDS.sleep(wait);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }, "feeder-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() {
    running = false;
    if (thread != null) {
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    producer.close();
  }
}
