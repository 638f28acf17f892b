package io.millrace.core.system.memory;

import io.millrace.api.system.StreamSpec;
import io.millrace.api.system.SystemProducer;
import java.util.ArrayList;
import java.util.List;

/** Appends output messages to in-memory streams; every append is immediately visible and durable. */
final class MemoryProducer implements SystemProducer {
  private final List<MemoryStream> outputs = new ArrayList<>();

  @Override
  public void register(int index, StreamSpec stream, int partitionCount) {
    while (outputs.size() <= index) {
      outputs.add(null);
    }
    outputs.set(index, MemoryStreams.getOrCreate(stream.physicalName(), partitionCount));
  }

  @Override
  public void start() {}

  @Override
  public void send(int index, int partition, Object key, Object value, long timestamp) {
    outputs.get(index).append(partition, key, value);
  }

  @Override
  public void flush() {}

  @Override
  public void stop() {}
}
