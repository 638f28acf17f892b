package io.millrace.core.system.memory;

import io.millrace.api.Headers;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.util.ArrayList;
import java.util.List;

/** Appends output messages to in-memory streams; every append is immediately visible and durable. */
final class MemoryProducer implements SystemProducer {
  private final List<MemoryStream> outputs = new ArrayList<>();
  /** The offset of the last message sent to each output's partitions (loop thread only). */
  private final List<long[]> lastOffsets = new ArrayList<>();

  @Override
  public void register(int index, StreamSpec stream, int partitionCount) {
    while (outputs.size() <= index) {
      outputs.add(null);
      lastOffsets.add(null);
    }
    MemoryStream memory = MemoryStreams.getOrCreate(stream.physicalName(), partitionCount);
    outputs.set(index, memory);
    long[] last = new long[memory.partitionCount()];
    java.util.Arrays.fill(last, -1);
    lastOffsets.set(index, last);
  }

  @Override
  public void start() {}

  @Override
  public void send(int index, int partition, Object key, Object value, long timestamp) {
    send(index, partition, key, value, timestamp, Headers.EMPTY);
  }

  @Override
  public void send(int index, int partition, Object key, Object value, long timestamp,
      Headers headers) {
    MemoryStream output = outputs.get(index);
    if (partition >= output.partitionCount()) {
      throw new IllegalArgumentException("output stream " + output.name() + " has "
          + output.partitionCount() + " partitions: there is no partition " + partition);
    }
    long offset = output.append(partition, key, value, timestamp, headers);
    if (partition >= 0) {
      lastOffsets.get(index)[partition] = offset;
    }
  }

  @Override
  public long lastOffset(int index, int partition) {
    return lastOffsets.get(index)[partition];
  }

  @Override
  public void flush() {}

  @Override
  public void stop() {}
}
