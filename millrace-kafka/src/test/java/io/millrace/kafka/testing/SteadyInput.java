package io.millrace.kafka.testing;

import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Input that keeps arriving while a job is killed and started again: every 10 ms, {@code perTick}
 * records to each partition of a topic, until stopped (20 a tick is about 2,000 records a second
 * a partition on an idle machine). Record i of partition p is keyed {@code keys.of(p, i)} and
 * valued {@code "p:i"}. The producer is idempotent (acks=all), so a retry writes nothing twice:
 * record i of a partition is at offset i of a topic only it writes. Shared by the kill tests of
 * millrace-kafka and millrace-samza (this module's test jar).
 */
public final class SteadyInput implements AutoCloseable {
  /** The key of record i of partition p. */
  public interface Keys {
    String of(int partition, long i);
  }

  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final int perTick;
  private final Keys keys;
  private final AtomicLongArray written;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(
      r -> new Thread(r, "steady-input"));

  /** Starts writing at once. */
  public SteadyInput(String bootstrap, String topic, int partitions, int perTick, Keys keys) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    p.put("linger.ms", "5");
    this.producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    this.topic = topic;
    this.perTick = perTick;
    this.keys = keys;
    this.written = new AtomicLongArray(partitions);
    ticks.scheduleWithFixedDelay(this::tick, 0, 10, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    for (int p = 0; p < written.length(); p++) {
      for (int n = 0; n < perTick; n++) {
        long i = written.getAndIncrement(p);
        producer.send(new ProducerRecord<>(topic, p, keys.of(p, i), p + ":" + i), (meta, e) -> {
          if (e != null) {
            failure.compareAndSet(null, e);
          }
        });
      }
    }
    producer.flush();
  }

  /** How many records it has handed to the producer so far, over every partition. */
  public long total() {
    long sum = 0;
    for (int p = 0; p < written.length(); p++) {
      sum += written.get(p);
    }
    return sum;
  }

  /**
   * Stops writing once the tick under way is done; returns how many records each partition got.
   *
   * @throws IllegalStateException if a send failed (the input is not what the counts say)
   */
  public long[] stop() throws InterruptedException {
    ticks.shutdown();
    if (!ticks.awaitTermination(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the input writer did not stop within 60 s");
    }
    producer.flush();
    if (failure.get() != null) {
      throw new IllegalStateException("a send of the input failed", failure.get());
    }
    long[] counts = new long[written.length()];
    for (int p = 0; p < counts.length; p++) {
      counts[p] = written.get(p);
    }
    return counts;
  }

  @Override
  public void close() {
    ticks.shutdownNow();
    producer.close();
  }
}
