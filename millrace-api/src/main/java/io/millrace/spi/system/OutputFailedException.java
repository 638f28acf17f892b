package io.millrace.spi.system;

/**
 * Thrown by a {@link SystemProducer}'s send or flush when a record sent <em>earlier</em> failed
 * after its send returned (the broker refused it, or it was not acknowledged in time). The failure
 * is not the fault of the message being processed, so the runtime does not apply
 * {@code task.error.policy} to that message (no innocent message is skipped or dead-lettered): the
 * container stops, and no checkpoint passes the message that sent the failed record. A record
 * refused while its send is still running is the sending message's own failure: the producer
 * throws another exception from that send, and the error policy applies to that message. A
 * store's changelog record refused is one too: a flush holds the writes of many messages.
 *
 * <p>An {@link IllegalStateException}, as a producer's failures were before: the producer holds
 * sends that cannot all be acknowledged.
 */
public class OutputFailedException extends IllegalStateException {
  /** Creates the exception; the message names the output and what went wrong. */
  public OutputFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
