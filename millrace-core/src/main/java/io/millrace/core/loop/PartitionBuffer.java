package io.millrace.core.loop;

import io.millrace.api.Envelope;

/**
 * The messages of one partition waiting for its task: a ring of references that grows by
 * doubling (rarely: the multiplexer polls a partition only when its buffer is empty). Loop thread
 * only.
 */
final class PartitionBuffer {
  private Envelope[] ring;
  private int mask;
  private int head;
  private int size;

  PartitionBuffer(int initialCapacity) {
    int capacity = Integer.highestOneBit(Math.max(2, initialCapacity - 1)) << 1;
    ring = new Envelope[capacity];
    mask = capacity - 1;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  void add(Envelope[] src, int from, int count) {
    if (size + count > ring.length) {
      grow(size + count);
    }
    int tail = (head + size) & mask;
    int first = Math.min(count, ring.length - tail);
    System.arraycopy(src, from, ring, tail, first);
    System.arraycopy(src, from + first, ring, 0, count - first);
    size += count;
  }

  /** Removes and returns the oldest message; the caller checked the buffer is not empty. */
  Envelope poll() {
    Envelope e = ring[head];
    ring[head] = null; // let the message go once the task has it
    head = (head + 1) & mask;
    size--;
    return e;
  }

  private void grow(int needed) {
    int capacity = Integer.highestOneBit(needed - 1) << 1;
    Envelope[] bigger = new Envelope[capacity];
    for (int i = 0; i < size; i++) {
      bigger[i] = ring[(head + i) & mask];
    }
    ring = bigger;
    mask = capacity - 1;
    head = 0;
  }
}
