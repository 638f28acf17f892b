package io.millrace.samza;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One output record of {@link CountPerKeyTask}: the input it counted (partition and offset), the
 * key's count after it, who counted it ({@code samza} or {@code millrace}), and where it is in
 * the output ({@code partition@offset}).
 */
record Counted(String key, int partition, long offset, int count, String runtime, String at) {
  static Counted of(ConsumerRecord<byte[], byte[]> r) {
    String[] f = new String(r.value(), StandardCharsets.UTF_8).split(",");
    return new Counted(new String(r.key(), StandardCharsets.UTF_8), Integer.parseInt(f[0]),
        Long.parseLong(f[1]), Integer.parseInt(f[2]), f[3], r.partition() + "@" + r.offset());
  }

  /** The input it counted, {@code partition@offset}. */
  String input() {
    return partition + "@" + offset;
  }
}
