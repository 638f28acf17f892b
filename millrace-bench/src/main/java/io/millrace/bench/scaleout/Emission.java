package io.millrace.bench.scaleout;

import java.nio.ByteBuffer;

/**
 * The value every scale-out job writes for each input record, on both Millrace and Kafka Streams:
 * when the task emitted it (wall clock, ms), which process emitted it, and the task (input
 * partition) it came from. The benchmark reads only these values, so both systems are timed by the
 * same clock at the same point: the moment a task handed the record to its producer.
 */
public final class Emission {
  /** Bytes in a value: emit ms (8), pid (4), task (4). */
  public static final int BYTES = 16;
  private static final int PID = (int) ProcessHandle.current().pid();

  private Emission() {}

  /** This process's value for a record of {@code task}, stamped now. */
  public static byte[] now(int task) {
    return ByteBuffer.allocate(BYTES).putLong(System.currentTimeMillis()).putInt(PID).putInt(task)
        .array();
  }

  /** When the value was emitted. */
  public static long emittedMs(byte[] value) {
    return ByteBuffer.wrap(value).getLong(0);
  }

  /** The pid of the process that emitted it. */
  public static int pid(byte[] value) {
    return ByteBuffer.wrap(value).getInt(8);
  }

  /** The task (input partition) it came from. */
  public static int task(byte[] value) {
    return ByteBuffer.wrap(value).getInt(12);
  }
}
