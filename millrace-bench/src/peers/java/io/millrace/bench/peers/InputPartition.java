package io.millrace.bench.peers;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.samza.Partition;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;

/**
 * One partition's input, generated lazily while TestRunner copies it into the in-memory system, so
 * the benchmark holds one copy of the messages rather than two. Keys come from a fixed table of
 * {@code KEY_CARDINALITY} strings; every value is its own {@code VALUE_BYTES}-byte array.
 *
 * <p>It yields ready-made envelopes (offsets 0, 1, ... per partition), which TestRunner stores as
 * they are. Given keys and values instead, Samza's in-memory producer builds each message's
 * {@code toString()} for a precondition message, which makes loading 10M messages several times
 * slower; the envelopes it would store are the same.
 */
final class InputPartition implements Iterable<IncomingMessageEnvelope> {
  static final int KEY_CARDINALITY = 1000;
  static final int VALUE_BYTES = 100;
  private static final String[] KEYS = keys();

  private final SystemStreamPartition ssp;
  private final long first;
  private final long count;

  private InputPartition(SystemStreamPartition ssp, long first, long count) {
    this.ssp = ssp;
    this.first = first;
    this.count = count;
  }

  /** Partition {@code partition}'s share of {@code messages} spread evenly over {@code partitions}. */
  static InputPartition of(String system, String stream, long messages, int partitions, int partition) {
    long base = messages / partitions;
    long extra = messages % partitions;
    long first = partition * base + Math.min(partition, extra);
    long count = base + (partition < extra ? 1 : 0);
    return new InputPartition(new SystemStreamPartition(system, stream, new Partition(partition)), first, count);
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
        long seq = first + offset;
        return new IncomingMessageEnvelope(ssp, Long.toString(offset++), KEYS[(int) (seq % KEY_CARDINALITY)],
            value(seq));
      }
    };
  }

  private static byte[] value(long seq) {
    byte[] value = new byte[VALUE_BYTES];
    for (int i = 0; i < Long.BYTES; i++) {
      value[i] = (byte) (seq >>> (8 * i));
    }
    return value;
  }

  private static String[] keys() {
    String[] keys = new String[KEY_CARDINALITY];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = String.format("key-%04d", i);
    }
    return keys;
  }
}
