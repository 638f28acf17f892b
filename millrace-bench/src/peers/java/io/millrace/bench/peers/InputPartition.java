package io.millrace.bench.peers;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;

/**
 * One partition's input, generated lazily while TestRunner copies it into the in-memory system, so
 * the benchmark holds one copy of the messages rather than two. Keys come from a fixed table of
 * {@code KEY_CARDINALITY} strings; every value is its own {@code VALUE_BYTES}-byte array.
 */
final class InputPartition implements Iterable<IncomingMessageEnvelope> {
  static final int KEY_CARDINALITY = 1000;
  static final int VALUE_BYTES = 100;
  private static final String[] KEYS = keys();

  private final SystemStreamPartition ssp;
  private final long first;
  private final long count;

  /** Messages {@code first .. first + count - 1} of the whole input. */
  InputPartition(SystemStreamPartition ssp, long first, long count) {
    this.ssp = ssp;
    this.first = first;
    this.count = count;
  }

  /** Splits {@code messages} as evenly as possible over {@code partitions}; earlier ones take the remainder. */
  static InputPartition of(SystemStreamPartition ssp, long messages, int partitions) {
    int partition = ssp.getPartition().getPartitionId();
    long base = messages / partitions;
    long extra = messages % partitions;
    long first = partition * base + Math.min(partition, extra);
    return new InputPartition(ssp, first, base + (partition < extra ? 1 : 0));
  }

  @Override
  public Iterator<IncomingMessageEnvelope> iterator() {
    return new Iterator<>() {
      private long next = first;

      @Override
      public boolean hasNext() {
        return next < first + count;
      }

      @Override
      public IncomingMessageEnvelope next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        long seq = next++;
        return new IncomingMessageEnvelope(ssp, Long.toString(seq - first), KEYS[(int) (seq % KEY_CARDINALITY)], value(seq));
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
