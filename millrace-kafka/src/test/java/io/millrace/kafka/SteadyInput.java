package io.millrace.kafka;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Writes records "p:i" (i counting per partition from 0) to every partition of a topic, about
 * 4,000 a second over two partitions, until stopped: input that keeps arriving while a job is
 * killed and started again. The producer is idempotent (acks=all), so a retry does not write a
 * record twice.
 */
final class SteadyInput implements AutoCloseable {
  /** The key of record i of partition p. */
  interface Keys {
    String of(int partition, long i);
  }

  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final Keys keys;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLongArray written;
  private final Thread thread;

  SteadyInput(String bootstrap, String topic, int partitions, Keys keys) {
    this.producer = TestBroker.producer(bootstrap);
    this.topic = topic;
    this.keys = keys;
    this.written = new AtomicLongArray(partitions);
    this.thread = new Thread(this::run, "input-writer");
    thread.start();
  }

  private void run() {
    try {
      while (running.get()) {
        for (int p = 0; p < written.length(); p++) {
          for (int n = 0; n < 20; n++) {
            long i = written.getAndIncrement(p);
            producer.send(new ProducerRecord<>(topic, p, keys.of(p, i), p + ":" + i));
          }
        }
        producer.flush();
        Thread.sleep(10); // about 4,000 records a second over two partitions: the job keeps up
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How many records it has written so far, over every partition. */
  long total() {
    long sum = 0;
    for (int p = 0; p < written.length(); p++) {
      sum += written.get(p);
    }
    return sum;
  }

  /** Stops writing; returns how many records each partition got. */
  long[] stop() {
    running.set(false);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    producer.close();
    long[] counts = new long[written.length()];
    for (int p = 0; p < counts.length; p++) {
      counts[p] = written.get(p);
    }
    return counts;
  }

  @Override
  public void close() {
    if (running.get()) {
      stop();
    }
  }
}
