package io.millrace.samza.task;

import java.util.Objects;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;

/**
 * Samza's envelope of a message Millrace delivered. Its offset's decimal string and its arrival
 * time are made when first asked for: a task that reads neither (most read the key and message
 * only) does not pay a string and a clock read per message, which together cost more than the
 * rest of the delivery (docs/benchmarks.md, peers-samza-task). The arrival time is therefore the
 * moment the task first asks for it, during or after its {@code process} call: never before the
 * delivery, as Samza's (the moment its consumer fetched the message) is never after it.
 *
 * <p>Equal to, hashed and printed as Samza's envelope of the same fields would be.
 */
final class DeliveredEnvelope extends IncomingMessageEnvelope {
  private final long offset;
  private String offsetText;
  private long arrivalTime;

  DeliveredEnvelope(SystemStreamPartition partition, long offset, Object key, Object message,
      int size, long eventTime) {
    super(partition, null, key, message, size, eventTime, 0L);
    this.offset = offset;
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
  public long getArrivalTime() {
    long time = arrivalTime;
    if (time == 0L) {
      time = System.currentTimeMillis();
      arrivalTime = time;
    }
    return time;
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
