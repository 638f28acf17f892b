package io.millrace.core.system.memory;

import io.millrace.api.Envelope;
import io.millrace.spi.system.BatchSink;

/**
 * One partition of an in-process stream: an append-only log in fixed-size chunks, so appending
 * never copies what is there and reading hands out slices of the chunks without copying.
 *
 * <p>Threading: appends are synchronized (several containers may write one output partition);
 * reads are lock-free: {@code size} is published with a volatile write after the slot is filled.
 */
final class MemoryPartition {
  private static final int CHUNK_BITS = 14;
  private static final int CHUNK = 1 << CHUNK_BITS;
  private volatile Envelope[][] chunks = new Envelope[4][];
  private volatile int size;
  private volatile boolean sealed;

  synchronized void append(Envelope envelope) {
    if (sealed) {
      throw new IllegalStateException("memory stream partition is sealed: no more appends");
    }
    int s = size;
    int chunk = s >>> CHUNK_BITS;
    Envelope[][] current = chunks;
    if (chunk == current.length) {
      current = java.util.Arrays.copyOf(current, current.length * 2);
      chunks = current;
    }
    if (current[chunk] == null) {
      current[chunk] = new Envelope[CHUNK];
    }
    current[chunk][s & (CHUNK - 1)] = envelope;
    size = s + 1; // publishes the slot to readers
  }

  void seal() {
    sealed = true;
  }

  boolean sealed() {
    return sealed;
  }

  int size() {
    return size;
  }

  Envelope get(long offset) {
    return chunks[(int) (offset >>> CHUNK_BITS)][(int) offset & (CHUNK - 1)];
  }

  /**
   * Hands messages from {@code from} (at most {@code max}) to the sink, one call per chunk slice.
   *
   * @return how many were handed over
   */
  int read(long from, int max, BatchSink sink, int index) {
    int end = (int) Math.min(size, from + max);
    Envelope[][] current = chunks;
    int position = (int) from;
    while (position < end) {
      int offsetInChunk = position & (CHUNK - 1);
      int count = Math.min(end - position, CHUNK - offsetInChunk);
      sink.accept(index, current[position >>> CHUNK_BITS], offsetInChunk, count);
      position += count;
    }
    return (int) (end - from);
  }
}
