package io.millrace.samza;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What {@link CountPerKeyTask} should make of its input, computed plainly from the input as
 * written, beside what its store's changelog holds: the crash tests' model.
 *
 * @param keyOf each input's key, by {@code partition@offset}
 * @param countAfter the count of its key once an input is counted, by {@code partition@offset}
 * @param counts each key's count once the whole input is counted
 */
record CountModel(Map<String, String> keyOf, Map<String, Integer> countAfter,
    Map<String, Integer> counts) {

  /**
   * The model of all the records of {@code input}; fails unless it holds {@code written[p]} of
   * each partition p (what the test wrote).
   */
  static CountModel of(TestKafka kafka, String input, long[] written) throws Exception {
    long total = 0;
    for (long w : written) {
      total += w;
    }
    List<ConsumerRecord<byte[], byte[]>> inputs = kafka.readAll(input, written.length);
    if (inputs.size() != total) {
      throw new AssertionError(input + " holds " + inputs.size() + " records, where " + total
          + " were written");
    }
    Map<String, String> keyOf = new HashMap<>();
    Map<String, Integer> countAfter = new HashMap<>();
    Map<String, Integer> counts = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : inputs) { // each partition's in its order
      String at = r.partition() + "@" + r.offset();
      String key = new String(r.key(), StandardCharsets.UTF_8);
      keyOf.put(at, key);
      countAfter.put(at, counts.merge(key, 1, Integer::sum));
    }
    return new CountModel(keyOf, countAfter, counts);
  }

  /**
   * The store's count of each key as its changelog holds them for a reader of committed data
   * (Samza's {@code IntegerSerde} values; a deleted key is left out).
   */
  static Map<String, Integer> changelog(TestKafka kafka, String changelog, int partitions)
      throws Exception {
    Map<String, Integer> counts = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(changelog, partitions, true)) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      if (r.value() == null) {
        counts.remove(key);
      } else {
        counts.put(key, ByteBuffer.wrap(r.value()).getInt());
      }
    }
    return counts;
  }
}
