package io.millrace.spi.system;

/**
 * Where a consumer starts reading a partition.
 *
 * @param kind after a checkpointed offset, from the oldest message, or from the next new one
 * @param offset the checkpointed offset for {@link Kind#AFTER}, otherwise -1
 */
public record StartPosition(Kind kind, long offset) {
  /** The kinds of start positions. */
  public enum Kind {
    /** Resume after a message already processed (a checkpoint). */
    AFTER,
    /** Read from the oldest message still held. */
    OLDEST,
    /** Read only messages that arrive after the start. */
    UPCOMING
  }

  /** Resume after {@code offset}. */
  public static StartPosition after(long offset) {
    return new StartPosition(Kind.AFTER, offset);
  }

  /** Start at the oldest message. */
  public static StartPosition oldest() {
    return new StartPosition(Kind.OLDEST, -1);
  }

  /** Start at the next new message. */
  public static StartPosition upcoming() {
    return new StartPosition(Kind.UPCOMING, -1);
  }
}
