package io.millrace.spi.engine;

/** A store's local files exist but cannot be read: they are wiped and restored from the changelog. */
public final class CorruptStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception naming the files and the cause. */
  public CorruptStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
