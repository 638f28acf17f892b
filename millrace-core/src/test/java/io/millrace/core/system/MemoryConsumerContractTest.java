package io.millrace.core.system;

import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.core.serde.StringSerde;
import io.millrace.core.system.memory.MemoryStream;
import io.millrace.core.system.memory.MemoryStreams;
import io.millrace.core.system.memory.MemorySystemFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;

/** The consumer contract on in-memory streams. */
class MemoryConsumerContractTest extends SystemConsumerContract {
  private final List<String> made = new ArrayList<>();

  @Override
  protected StreamSpec stream(String name, int partitions, int messages) {
    String unique = name + "-" + UUID.randomUUID();
    MemoryStream stream = MemoryStreams.create(unique, partitions);
    made.add(unique);
    for (int p = 0; p < partitions; p++) {
      for (int i = 0; i < messages; i++) {
        stream.append(p, null, "p" + p + "-" + i);
      }
    }
    return new StreamSpec(unique, unique, new StringSerde(), new StringSerde());
  }

  @Override
  protected SystemConsumer newConsumer() {
    return new MemorySystemFactory().consumer(context("memory", Map.of()));
  }

  @AfterEach
  void drop() {
    made.forEach(MemoryStreams::drop);
  }
}
