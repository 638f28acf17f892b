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

  private InputPartition(SystemStreamPartition ssp, int partitions, long count) {
    this.ssp = ssp;
    this.partitions = partitions;
    this.count = count;
  }

  /** Partition {@code partition}'s share of {@code messages} dealt round-robin over {@code partitions}. */
  static InputPartition of(String system, String stream, long messages, int partitions, int partition) {
    long count = messages / partitions + (partition < messages % partitions ? 1 : 0);
    return new InputPartition(new SystemStreamPartition(system, stream, new Partition(partition)), partitions,
        count);
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
        return new IncomingMessageEnvelope(ssp, Long.toString(offset++), KEYS[(int) (i % KEY_CARDINALITY)],
            PAYLOADS[(int) (i % PAYLOAD_POOL)]);
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
