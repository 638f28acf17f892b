package io.millrace.core.system;

/**
 * A consumer whose offsets do not count messages (a file's are byte positions) counts what it
 * hands over, so that rates and lag can be shown in messages rather than in offsets. Other threads
 * (the status page, metrics) read these figures racily: they are for display, never for commits.
 */
public interface MessageCounting {
  /**
   * Messages handed over for the partition registered at {@code index} since it was registered
   * (0 if none is).
   *
   * @param index the partition's index, as given to {@code SystemConsumer.register}
   */
  long handedOver(int index);

  /**
   * Messages of a bounded partition not yet handed over, or -1 if unknown. An estimate where the
   * system cannot count ahead (a file: the bytes left at the mean line length read so far); 0 once
   * the partition's end is handed over.
   *
   * @param index the partition's index, as given to {@code SystemConsumer.register}
   */
  long remaining(int index);
}
