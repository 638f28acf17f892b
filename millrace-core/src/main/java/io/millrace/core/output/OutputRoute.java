package io.millrace.core.output;

import io.millrace.api.Headers;
import io.millrace.api.Output;
import io.millrace.spi.system.SystemProducer;

/** One output stream of a container: its producer and the index the producer knows it by. */
public final class OutputRoute implements Output {
  private final String id;
  final SystemProducer producer;
  final int index;
  private final int partitionCount;

  /** Creates a route. */
  public OutputRoute(String id, SystemProducer producer, int index, int partitionCount) {
    this.id = id;
    this.producer = producer;
    this.index = index;
    this.partitionCount = partitionCount;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public int partitionCount() {
    return partitionCount;
  }

  /**
   * Sends one message; {@code partition} -1 lets the producer choose, {@code timestamp} -1 leaves
   * it unset, empty {@code headers} take the producer's plain path.
   */
  public void send(int partition, Object key, Object value, long timestamp, Headers headers) {
    if (partition >= partitionCount || partition < -1) {
      throw new IllegalArgumentException("partition " + partition + " of output " + id
          + " does not exist: it has " + partitionCount + " partitions");
    }
    if (headers.isEmpty()) {
      producer.send(index, partition, key, value, timestamp);
    } else {
      producer.send(index, partition, key, value, timestamp, headers);
    }
  }
}
