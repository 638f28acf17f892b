package io.millrace.samza.task;

import java.util.Objects;
import org.apache.samza.system.DrainMessage;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.system.WatermarkMessage;

/**
 * Samza's envelope of a message Millrace delivered, made by {@link #of} without running Samza's
 * constructor: every constructor of {@link IncomingMessageEnvelope} reads the wall clock through
 * {@code Instant.now()} (a JNI call, ~28 ns here), which was most of the adapter's cost per
 * message (docs/benchmarks.md, "What bounds the adapter"). An envelope is a copy of one
 * prototype ({@link Object#clone}, which runs no constructor) with this class's own fields set,
 * and every public method of Samza's class is overridden to read them: the fields Samza's class
 * holds stay the prototype's and are never read. The arrival time comes from the caller (the
 * adapter's {@link ArrivalClock}).
 *
 * <p>The offset's decimal string is made when first asked for: a task that does not read it
 * (most read the key and message only) does not pay a string per message.
 *
 * <p>Equal to, hashed and printed as Samza's envelope of the same fields would be.
 */
final class DeliveredEnvelope extends IncomingMessageEnvelope implements Cloneable {
  private static final DeliveredEnvelope PROTOTYPE = new DeliveredEnvelope();

  // Set once, in of(), before the envelope is handed out; the hand-off to another thread (an
  // async task's pool) publishes them, as it publishes Samza's non-final time fields.
  private SystemStreamPartition partition;
  private long offset;
  private Object key;
  private Object message;
  private int size;
  private long eventTime;
  private long arrivalTime;
  private String offsetText;

  private DeliveredEnvelope() {
    super(null, null, null, null, 0, 0L, 0L); // the prototype's: its clock read happens once
  }

  /**
   * The envelope of one message.
   *
   * @param eventTime Samza's event time (0: none)
   * @param arrivalTime when it reached the task, in milliseconds since the epoch
   */
  static DeliveredEnvelope of(SystemStreamPartition partition, long offset, Object key,
      Object message, int size, long eventTime, long arrivalTime) {
    DeliveredEnvelope envelope = PROTOTYPE.copy();
    envelope.partition = partition;
    envelope.offset = offset;
    envelope.key = key;
    envelope.message = message;
    envelope.size = size;
    envelope.eventTime = eventTime;
    envelope.arrivalTime = arrivalTime;
    return envelope;
  }

  private DeliveredEnvelope copy() {
    try {
      return (DeliveredEnvelope) super.clone();
    } catch (CloneNotSupportedException impossible) {
      throw new AssertionError(impossible); // this class is Cloneable
    }
  }

  @Override
  public SystemStreamPartition getSystemStreamPartition() {
    return partition;
  }

  /** As Samza's: the partition's key bucket by the key's (or the offset's) hash. */
  @Override
  public SystemStreamPartition getSystemStreamPartition(int elasticityFactor) {
    if (elasticityFactor <= 1) {
      return partition;
    }
    Object bucketBy = key != null ? key : getOffset();
    return new SystemStreamPartition(partition, Math.abs(bucketBy.hashCode()) % elasticityFactor);
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
  public Object getKey() {
    return key;
  }

  @Override
  public Object getMessage() {
    return message;
  }

  @Override
  public int getSize() {
    return size;
  }

  @Override
  public long getEventTime() {
    return eventTime;
  }

  @Override
  public long getArrivalTime() {
    return arrivalTime;
  }

  @Override
  public boolean isEndOfStream() {
    return false; // Millrace tells a task of its end of stream by onEndOfStream, not a message
  }

  @Override
  public boolean isDrain() {
    return message instanceof DrainMessage;
  }

  @Override
  public boolean isWatermark() {
    return message instanceof WatermarkMessage;
  }

  @Override
  public int hashCode() {
    int result = 1;
    result = 31 * result + Objects.hashCode(key);
    result = 31 * result + Objects.hashCode(message);
    result = 31 * result + getOffset().hashCode();
    return 31 * result + partition.hashCode();
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    return other instanceof DeliveredEnvelope that
        && offset == that.offset
        && Objects.equals(key, that.key)
        && Objects.equals(message, that.message)
        && partition.equals(that.partition);
  }

  @Override
  public String toString() {
    return "IncomingMessageEnvelope [systemStreamPartition=" + partition
        + ", offset=" + getOffset() + ", key=" + key + ", message=" + message
        + ", eventTime=" + eventTime + ", arrivalTime=" + arrivalTime + "]";
  }
}
