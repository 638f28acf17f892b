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
  private final long[] offsets;
  private final boolean[] done;
  private final int mask;
  private long head;
  private long tail;

  /** A ring of at least {@code capacity} slots. */
  public Watermark(int capacity) {
    int size = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
    offsets = new long[size];
    done = new boolean[size];
    mask = size - 1;
  }

  /** Whether no slot is free. */
  public boolean isFull() {
    return tail - head == offsets.length;
  }

  /** Whether every slot is below the watermark. */
  public boolean isEmpty() {
    return tail == head;
  }

  /** Adds a message; returns its slot. The caller checked {@link #isFull}. */
  public long add(long offset) {
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

  /** Slots not yet below the watermark. */
  public int outstanding() {
    return (int) (tail - head);
  }
}
