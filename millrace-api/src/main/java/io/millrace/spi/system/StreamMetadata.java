package io.millrace.spi.system;

/**
 * The offsets of one partition at the moment the admin was asked.
 *
 * @param oldest the offset of the oldest message, or -1 if the partition is empty
 * @param newest the offset of the newest message, or -1 if the partition is empty
 * @param upcoming the offset the next message will get
 * @param bounded whether the partition ends (a file, a finite memory stream)
 */
public record StreamMetadata(long oldest, long newest, long upcoming, boolean bounded) {
  /** Whether the partition holds no message. */
  public boolean isEmpty() {
    return newest < 0;
  }
}
