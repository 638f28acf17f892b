package io.millrace.samza.task;

import io.millrace.api.Envelope;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.util.Objects;
import org.apache.samza.system.DrainMessage;
import org.apache.samza.system.IncomingMessageEnvelope;
import org.apache.samza.system.SystemStreamPartition;
import org.apache.samza.system.WatermarkMessage;

/**
 * Samza's envelope of a message Millrace delivered: a view of Millrace's {@link Envelope}
 * (immutable, so a task may keep this one past {@code process()}, as an async task does) that
 * reads the partition, offset, size and event time from it when asked, and the key and message
 * too where the stream has no serdes (else the serdes' objects, read before the task is called,
 * as Samza reads them). Building it costs one allocation and three or six field writes a message,
 * where copying Millrace's fields into it cost ~2 ns more (docs/benchmarks.md, "What bounds
 * the adapter").
 *
 * <p>It is made without running Samza's constructor: every constructor of {@link
 * IncomingMessageEnvelope} reads the wall clock through {@code Instant.now()} (a JNI call, ~28 ns
 * here), and Samza's 7 fields are never read: every public method of Samza's class is overridden
 * to read this class's own. The arrival time comes from the caller (the adapter's {@link
 * ArrivalClock}).
 *
 * <p>The offset's decimal string is made when first asked for: a task that does not read it
 * (most read the key and message only) does not pay a string per message.
 *
 * <p>Equal to, hashed and printed as Samza's envelope of the same fields would be.
 */
final class DeliveredEnvelope extends IncomingMessageEnvelope {
  /**
   * {@code sun.misc.Unsafe.allocateInstance}, bound to the Unsafe: a zeroed instance of a class,
   * no constructor run. What it saves: against the {@code clone()} of a prototype (the other way
   * to skip Samza's constructor), the copy of all 80 bytes, Samza's unread fields included: ~1.7
   * ns a message, 9% of the stateless adapter's throughput (docs/decisions.md, "Samza envelopes
   * made by Unsafe.allocateInstance"). Called through a constant method handle with a constant
   * class, C2 inlines it to its intrinsic, an allocation as {@code new} makes. Found by name
   * through reflection, not named in the source: javac warns of every use of {@code
   * sun.misc.Unsafe}, and this project builds with {@code -Werror}.
   */
  private static final MethodHandle ALLOCATE = allocator();

  /** The Samza partitions of the stream a message came from, by partition number. */
  interface Partitions {
    SystemStreamPartition partition(int partition);
  }

  // Set once, in of() or decoded(), before the envelope is handed out; the hand-off to another
  // thread (an async task's pool) publishes them. Millrace's envelope is immutable.
  private Envelope source;
  private Partitions partitions;
  private Object key;
  private Object message;
  private boolean decoded;
  private long arrivalTime;
  private String offsetText;

  private DeliveredEnvelope() {
    super(null, null, null, null, 0, 0L, 0L);
    throw new AssertionError("made by allocateInstance only, never by its constructor");
  }

  /**
   * The envelope of a message whose key and value pass as they are (no serdes).
   *
   * @param arrivalTime when it reached the task, in milliseconds since the epoch
   */
  static DeliveredEnvelope of(Envelope source, Partitions partitions, long arrivalTime) {
    DeliveredEnvelope envelope = allocate();
    envelope.source = source;
    envelope.partitions = partitions;
    envelope.arrivalTime = arrivalTime;
    return envelope;
  }

  /** The envelope of a message whose key and value the stream's serdes read. */
  static DeliveredEnvelope decoded(Envelope source, Partitions partitions, Object key,
      Object message, long arrivalTime) {
    DeliveredEnvelope envelope = allocate();
    envelope.source = source;
    envelope.partitions = partitions;
    envelope.key = key;
    envelope.message = message;
    envelope.decoded = true;
    envelope.arrivalTime = arrivalTime;
    return envelope;
  }

  private static DeliveredEnvelope allocate() {
    try {
      return (DeliveredEnvelope) (Object) ALLOCATE.invokeExact(DeliveredEnvelope.class);
    } catch (Throwable impossible) { // InstantiationException: for an abstract class only
      throw new AssertionError(impossible);
    }
  }

  private static MethodHandle allocator() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe"); // module jdk.unsupported
      Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
      theUnsafe.setAccessible(true);
      return MethodHandles.lookup()
          .findVirtual(unsafeClass, "allocateInstance",
              MethodType.methodType(Object.class, Class.class))
          .bindTo(theUnsafe.get(null));
    } catch (ReflectiveOperationException | RuntimeException absent) {
      throw new ExceptionInInitializerError("Samza envelopes need sun.misc.Unsafe.allocateInstance"
          + " (module jdk.unsupported), which this JVM does not give: " + absent);
    }
  }

  @Override
  public SystemStreamPartition getSystemStreamPartition() {
    return partitions.partition(source.partition());
  }

  /** As Samza's: the partition's key bucket by the key's (or the offset's) hash. */
  @Override
  public SystemStreamPartition getSystemStreamPartition(int elasticityFactor) {
    SystemStreamPartition partition = getSystemStreamPartition();
    if (elasticityFactor <= 1) {
      return partition;
    }
    Object key = getKey();
    Object bucketBy = key != null ? key : getOffset();
    return new SystemStreamPartition(partition, Math.abs(bucketBy.hashCode()) % elasticityFactor);
  }

  @Override
  public String getOffset() {
    String text = offsetText;
    if (text == null) {
      text = Long.toString(source.offset());
      offsetText = text;
    }
    return text;
  }

  @Override
  public Object getKey() {
    return decoded ? key : source.key();
  }

  @Override
  public Object getMessage() {
    return decoded ? message : source.value();
  }

  @Override
  public int getSize() {
    return source.sizeInBytes();
  }

  @Override
  public long getEventTime() {
    long timestamp = source.timestamp();
    return timestamp < 0 ? 0 : timestamp; // Samza's "no event time" is 0, Millrace's -1
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
    return getMessage() instanceof DrainMessage;
  }

  @Override
  public boolean isWatermark() {
    return getMessage() instanceof WatermarkMessage;
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
        && source.offset() == that.source.offset()
        && Objects.equals(getKey(), that.getKey())
        && Objects.equals(getMessage(), that.getMessage())
        && getSystemStreamPartition().equals(that.getSystemStreamPartition());
  }

  @Override
  public String toString() {
    return "IncomingMessageEnvelope [systemStreamPartition=" + getSystemStreamPartition()
        + ", offset=" + getOffset() + ", key=" + getKey() + ", message=" + getMessage()
        + ", eventTime=" + getEventTime() + ", arrivalTime=" + arrivalTime + "]";
  }
}
