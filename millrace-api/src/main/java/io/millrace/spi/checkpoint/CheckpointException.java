package io.millrace.spi.checkpoint;

/** A checkpoint could not be read or written; the message names the file and what is wrong. */
public class CheckpointException extends RuntimeException {
  /** Creates the exception. */
  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates the exception. */
  public CheckpointException(String message) {
    super(message);
  }
}
