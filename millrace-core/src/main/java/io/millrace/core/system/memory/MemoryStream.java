package io.millrace.core.system.memory;

import io.millrace.api.Envelope;
import io.millrace.api.Headers;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-process stream: partitions of messages held in memory, written by producers, tests or the
 * generator, read by memory consumers. A sealed stream is bounded: its readers reach end of
 * stream once they have read everything.
 */
public final class MemoryStream {
  private final String name;
  private final String envelopeStream;
  private final MemoryPartition[] partitions;
  private int roundRobin;

  MemoryStream(String name, int partitionCount) {
    this(name, partitionCount, name);
  }

  MemoryStream(String name, int partitionCount, String envelopeStream) {
    this.name = name;
    this.envelopeStream = envelopeStream;
    this.partitions = new MemoryPartition[partitionCount];
    for (int i = 0; i < partitionCount; i++) {
      partitions[i] = new MemoryPartition();
    }
  }

  /** The stream's name. */
  public String name() {
    return name;
  }

  /** The stream name its envelopes carry (the physical name, or the job's id if generated). */
  String envelopeStream() {
    return envelopeStream;
  }

  /** The number of partitions. */
  public int partitionCount() {
    return partitions.length;
  }

  /**
   * Appends a message; its offset is the partition's size before the append.
   *
   * @param partition the partition, or -1 to choose from the key's hash (round-robin if null)
   * @return the message's offset
   */
  public long append(int partition, Object key, Object value) {
    return append(partition, key, value, -1, Headers.EMPTY);
  }

  /**
   * Appends a message with a timestamp (-1: none) and headers.
   *
   * @return the message's offset
   */
  public long append(int partition, Object key, Object value, long timestamp, Headers headers) {
    int p = partition >= 0 ? partition : choose(key);
    MemoryPartition target = partitions[p];
    synchronized (target) {
      long offset = target.size();
      target.append(new Envelope(envelopeStream, p, offset, key, value, timestamp,
          sizeOf(key) + sizeOf(value), headers));
      return offset;
    }
  }

  /** Appends a prebuilt envelope (the generator's fast path); its offset must be the next one. */
  void appendEnvelope(Envelope envelope) {
    partitions[envelope.partition()].append(envelope);
  }

  private synchronized int choose(Object key) {
    if (key == null) {
      roundRobin = (roundRobin + 1) % partitions.length;
      return roundRobin;
    }
    return Math.floorMod(key.hashCode(), partitions.length);
  }

  /** Ends the stream: readers see end of stream after the last message. */
  public void seal() {
    for (MemoryPartition p : partitions) {
      p.seal();
    }
  }

  /** Whether the stream is sealed. */
  public boolean sealed() {
    return partitions[0].sealed();
  }

  /** The number of messages in a partition. */
  public int size(int partition) {
    return partitions[partition].size();
  }

  /** A copy of a partition's messages, for tests and examples. */
  public List<Envelope> messages(int partition) {
    MemoryPartition p = partitions[partition];
    int size = p.size();
    List<Envelope> result = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      result.add(p.get(i));
    }
    return result;
  }

  /** A copy of every message, partition by partition. */
  public List<Envelope> messages() {
    List<Envelope> result = new ArrayList<>();
    for (int p = 0; p < partitions.length; p++) {
      result.addAll(messages(p));
    }
    return result;
  }

  MemoryPartition partition(int p) {
    return partitions[p];
  }

  static int sizeOf(Object o) {
    if (o == null) {
      return 0;
    }
    if (o instanceof byte[] bytes) {
      return bytes.length;
    }
    if (o instanceof CharSequence chars) {
      return chars.length();
    }
    return 16;
  }
}
