package io.millrace.samza.task;

import java.util.Objects;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;

/**
 * Samza's envelope of a message Millrace delivered. Its offset's decimal string is made when first
 * asked for: a task that does not read it (most read the key and message only) does not pay a
 * string per message. Samza's constructor reads the clock for the arrival time, as it does on
 * Samza, so the arrival time is the moment of delivery; the event time is kept here, as the
 * constructor that takes it would read the clock a second time (docs/benchmarks.md,
 * peers-samza-task).
 *
 * <p>Equal to, hashed and printed as Samza's envelope of the same fields would be.
 */
final class DeliveredEnvelope extends IncomingMessageEnvelope {
  private final long offset;
  private final long eventTime;
  private String offsetText;

  DeliveredEnvelope(SystemStreamPartition partition, long offset, Object key, Object message,
      int size, long eventTime) {
    super(partition, null, key, message, size);
    this.offset = offset;
    this.eventTime = eventTime;
  }

  @Override
  public String getOffset() {
    String text = offsetText;
    if (text == null) {
      text = Long.toString(offset);
      offsetText = text;
    }
    return text;
  }

  @Override
  public long getEventTime() {
    return eventTime;
  }

  @Override
  public boolean isEndOfStream() {
    return false; // Millrace tells a task of its end of stream by onEndOfStream, not a message
  }

  @Override
  public int hashCode() {
    int result = 1;
    result = 31 * result + Objects.hashCode(getKey());
    result = 31 * result + Objects.hashCode(getMessage());
    result = 31 * result + getOffset().hashCode();
    return 31 * result + getSystemStreamPartition().hashCode();
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    return other instanceof DeliveredEnvelope that
        && offset == that.offset
        && Objects.equals(getKey(), that.getKey())
        && Objects.equals(getMessage(), that.getMessage())
        && getSystemStreamPartition().equals(that.getSystemStreamPartition());
  }

  @Override
  public String toString() {
    return "IncomingMessageEnvelope [systemStreamPartition=" + getSystemStreamPartition()
        + ", offset=" + getOffset() + ", key=" + getKey() + ", message=" + getMessage()
        + ", eventTime=" + getEventTime() + ", arrivalTime=" + getArrivalTime() + "]";
  }
}
