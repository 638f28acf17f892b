package io.millrace.core.system;

import io.millrace.api.Envelope;
import io.millrace.api.Serde;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.system.memory.MemorySystemFactory;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemProducer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;

/**
 * The producer contract on in-memory streams: every append is there at once, with its offset (its
 * position in the partition), key, value, timestamp and headers as objects (nothing serialized).
 */
class MemoryProducerContractTest extends SystemProducerContract {
  private final List<String> made = new ArrayList<>();

  @Override
  protected StreamSpec output(String name, int partitions, Serde<?> keySerde,
      Serde<?> valueSerde) {
    String unique = name + "-" + UUID.randomUUID();
    MemoryStreams.create(unique, partitions);
    made.add(unique);
    return new StreamSpec(name, unique, keySerde, valueSerde);
  }

  @Override
  protected SystemProducer newProducer() {
    return new MemorySystemFactory().producer(context("memory", Map.of()));
  }

  @Override
  protected List<Written> read(StreamSpec stream, int partition) {
    MemoryStream memory = MemoryStreams.get(stream.physicalName());
    List<Written> written = new ArrayList<>();
    for (Envelope e : memory.messages(partition)) {
      written.add(new Written(e.offset(), (String) e.key(), (String) e.value(), e.timestamp(),
          e.headers()));
    }
    return written;
  }

  @Override
  protected boolean hasOffsets() {
    return true;
  }

  @Override
  protected boolean carriesHeadersAndTimestamps() {
    return true;
  }

  @Override
  protected boolean serializes() {
    return false;
  }

  @AfterEach
  void drop() {
    made.forEach(MemoryStreams::drop);
  }
}
