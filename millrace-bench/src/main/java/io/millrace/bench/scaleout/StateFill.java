package io.millrace.bench.scaleout;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes a job's state straight into its store's changelog before the job starts, so that both
 * systems start from the same bytes: what the processes then restore is the state a job "holds".
 * Keys are 9 bytes ({@code 'S'} and a long) and never collide with the input's 8-byte keys, so the
 * counting tasks never read them; values are 1,016 bytes (1 KiB a record with the key and
 * overhead) from a pool of incompressible payloads.
 */
final class StateFill {
  static final int VALUE_BYTES = 1_016;
  private static final int POOL = 1_024;

  private StateFill() {}

  /**
   * Writes about {@code bytes} of state spread evenly over the partitions {@code where} accepts.
   *
   * @return the records written
   */
  static long fill(String bootstrap, String changelog, int partitions, IntPredicate where,
      long bytes) {
    byte[][] pool = new byte[POOL][VALUE_BYTES];
    Random random = new Random(42);
    for (byte[] payload : pool) {
      random.nextBytes(payload);
    }
    int[] chosen = java.util.stream.IntStream.range(0, partitions).filter(where).toArray();
    long records = bytes / (VALUE_BYTES + 8);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
        Feeder.producerConfig(bootstrap, 20, 1 << 20),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      for (long i = 0; i < records; i++) {
        byte[] key = ByteBuffer.allocate(9).put((byte) 'S').putLong(i).array();
        producer.send(new ProducerRecord<>(changelog, chosen[(int) (i % chosen.length)], key,
            pool[(int) (i % POOL)]));
      }
      producer.flush();
    }
    return records;
  }
}
