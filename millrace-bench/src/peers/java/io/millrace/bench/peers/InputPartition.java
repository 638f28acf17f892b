package io.millrace.bench.peers;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import org.apache.samza.Partition;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;

/**
 * One partition's input, made as Millrace's memory-stream generator makes it: message {@code i}
 * goes to partition {@code i % P} with key {@code key-(i % 1000)} and one of a shared pool of 1,024
 * random 100-byte payloads. It is generated lazily while TestRunner stores it, so only one copy is
 * held.
 *
 * <p>It yields ready-made envelopes (offsets 0, 1, ... per partition), which TestRunner stores as
 * they are. Given keys and values instead, Samza's in-memory producer builds each message's
 * {@code toString()} for a precondition message, which makes loading 10M messages several times
 * slower; the envelopes it would store are the same.
 */
final class InputPartition implements Iterable<IncomingMessageEnvelope> {
  static final int KEY_CARDINALITY = 1000;
  static final int VALUE_BYTES = 100;
  private static final int PAYLOAD_POOL = 1024;
  private static final String[] KEYS = keys();
  private static final byte[][] PAYLOADS = payloads();

  private final SystemStreamPartition ssp;
  private final int partitions;
  private final long count;
  private final long keys;

  private InputPartition(SystemStreamPartition ssp, int partitions, long count, long keys) {
    this.ssp = ssp;
    this.partitions = partitions;
    this.count = count;
    this.keys = keys;
  }

  /** Partition {@code partition}'s share of {@code messages} dealt round-robin over {@code partitions}. */
  static InputPartition of(String system, String stream, long messages, int partitions, int partition) {
    long count = messages / partitions + (partition < messages % partitions ? 1 : 0);
    return new InputPartition(new SystemStreamPartition(system, stream, new Partition(partition)), partitions,
        count, KEY_CARDINALITY);
  }

  /**
   * As {@link #of(String, String, long, int, int)} with keys {@code key-(i % keys)}: with as many
   * keys as messages, every key is new (the store benchmark's unique keys), made as the input is
   * loaded, before the timed interval.
   */
  static InputPartition of(String system, String stream, long messages, int partitions, int partition,
      long keys) {
    InputPartition base = of(system, stream, messages, partitions, partition);
    return new InputPartition(base.ssp, partitions, base.count, keys);
  }

  @Override
  public Iterator<IncomingMessageEnvelope> iterator() {
    return new Iterator<>() {
      private long offset;

      @Override
      public boolean hasNext() {
        return offset < count;
      }

      @Override
      public IncomingMessageEnvelope next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        long i = ssp.getPartition().getPartitionId() + offset * partitions; // the message's index in the input
        String key = keys == KEY_CARDINALITY ? KEYS[(int) (i % KEY_CARDINALITY)] : "key-" + (i % keys);
        return new IncomingMessageEnvelope(ssp, Long.toString(offset++), key, PAYLOADS[(int) (i % PAYLOAD_POOL)]);
      }
    };
  }

  private static String[] keys() {
    String[] keys = new String[KEY_CARDINALITY];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = "key-" + i;
    }
    return keys;
  }

  private static byte[][] payloads() {
    SplittableRandom random = new SplittableRandom(42);
    byte[][] payloads = new byte[PAYLOAD_POOL][VALUE_BYTES];
    for (byte[] payload : payloads) {
      for (int i = 0; i < payload.length; i++) {
        payload[i] = (byte) ('a' + random.nextInt(26));
      }
    }
    return payloads;
  }
}
