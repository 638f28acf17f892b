package io.millrace.core.async;

/**
 * The messages of one partition handed to an asynchronous task and not yet part of the committed
 * offset, in offset order: a ring of slots, each with its offset and whether it has completed. The
 * committed offset (the watermark) is the offset of the newest slot below which every slot has
 * completed; completing slots out of order just marks them, and the watermark moves when the
 * oldest completes. Fixed capacity, so a stuck message bounds how far its partition runs ahead.
 * Loop thread only.
 */
public final class Watermark {
  /** Rings start this small and double as needed, so a high concurrency costs memory only in use. */
  private static final int INITIAL = 1024;
  private final int capacity;
  private long[] offsets;
  private boolean[] done;
  private int mask;
  private long head;
  private long tail;

  /** A ring of at least {@code capacity} slots. */
  public Watermark(int capacity) {
    this.capacity = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    int size = Math.min(this.capacity, INITIAL);
    offsets = new long[size];
    done = new boolean[size];
    mask = size - 1;
  }

  /** Whether no slot is free. */
  public boolean isFull() {
    return tail - head == capacity;
  }

  /** Whether every slot is below the watermark. */
  public boolean isEmpty() {
    return tail == head;
  }

  /** Adds a message; returns its slot. The caller checked {@link #isFull}. */
  public long add(long offset) {
    if (tail - head == offsets.length) {
      grow();
    }
    int i = (int) (tail & mask);
    offsets[i] = offset;
    done[i] = false;
    return tail++;
  }

  /**
   * Marks a slot complete and moves the watermark as far as it can.
   *
   * @return the new watermark offset, or {@code Long.MIN_VALUE} if it did not move
   */
  public long complete(long slot) {
    done[(int) (slot & mask)] = true;
    long moved = Long.MIN_VALUE;
    while (head < tail && done[(int) (head & mask)]) {
      moved = offsets[(int) (head & mask)];
      head++;
    }
    return moved;
  }

  /** Doubles the ring, keeping each slot at its index modulo the new size. */
  private void grow() {
    int size = offsets.length * 2;
    long[] newOffsets = new long[size];
    boolean[] newDone = new boolean[size];
    for (long slot = head; slot < tail; slot++) {
      newOffsets[(int) (slot & (size - 1))] = offsets[(int) (slot & mask)];
      newDone[(int) (slot & (size - 1))] = done[(int) (slot & mask)];
    }
    offsets = newOffsets;
    done = newDone;
    mask = size - 1;
  }

  /** Slots not yet below the watermark. */
  public int outstanding() {
    return (int) (tail - head);
  }
}
