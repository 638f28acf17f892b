package io.millrace.core.system.memory;

import io.millrace.api.config.ConfigException;
import io.millrace.spi.system.StreamMetadata;
import io.millrace.spi.system.StreamSpec;
import io.millrace.spi.system.SystemAdmin;
import io.millrace.spi.system.SystemConsumer;
import io.millrace.spi.system.SystemContext;
import io.millrace.spi.system.SystemFactory;
import io.millrace.spi.system.SystemProducer;
import java.util.Set;

/**
 * The {@code memory} system: in-process streams ({@link MemoryStreams}), optionally generated
 * ({@code streams.<id>.generator.*}). Messages are kept as objects, so serdes are not applied.
 */
public final class MemorySystemFactory implements SystemFactory {
  @Override
  public Set<String> systemKeys() {
    return Set.of(MemoryConsumer.BATCH_SIZE, MemoryConsumer.LINGER_MS, MemoryConsumer.QUEUE_BATCHES);
  }

  @Override
  public Set<String> streamKeys() {
    return Set.of(GeneratorSpec.MESSAGES, GeneratorSpec.PARTITIONS, GeneratorSpec.PAYLOAD,
        GeneratorSpec.KEYS, GeneratorSpec.MODE, GeneratorSpec.SEED);
  }

  @Override
  public SystemAdmin admin(SystemContext context) {
    return new Admin(context);
  }

  @Override
  public SystemConsumer consumer(SystemContext context) {
    return new MemoryConsumer(context);
  }

  @Override
  public SystemProducer producer(SystemContext context) {
    return new MemoryProducer();
  }

  private static final class Admin implements SystemAdmin {
    private final SystemContext context;

    Admin(SystemContext context) {
      this.context = context;
    }

    @Override
    public synchronized int partitionCount(StreamSpec stream) {
      GeneratorSpec generator = GeneratorSpec.of(stream.id(), context.streamConfig(stream.id()));
      if (generator != null && generator.live()) {
        return generator.partitions();
      }
      MemoryStream existing = MemoryStreams.get(stream.physicalName());
      if (existing == null && generator != null) {
        existing = generator.fill(stream.physicalName(), stream.id());
      }
      if (existing == null) {
        throw new ConfigException("input stream " + stream.id() + ": memory stream '"
            + stream.physicalName() + "' does not exist (create it with MemoryStreams.create, or "
            + "set streams." + stream.id() + ".generator.messages)");
      }
      return existing.partitionCount();
    }

    @Override
    public StreamMetadata metadata(StreamSpec stream, int partition) {
      GeneratorSpec generator = GeneratorSpec.of(stream.id(), context.streamConfig(stream.id()));
      if (generator != null && generator.live()) {
        long count = generator.messagesOf(partition);
        return new StreamMetadata(count == 0 ? -1 : 0, count - 1, count, true);
      }
      MemoryStream existing = MemoryStreams.get(stream.physicalName());
      int size = existing == null ? 0 : existing.size(partition);
      return new StreamMetadata(size == 0 ? -1 : 0, size - 1, size,
          existing != null && existing.sealed());
    }

    @Override
    public int ensureOutput(StreamSpec stream, int partitions) {
      return MemoryStreams.getOrCreate(stream.physicalName(), partitions).partitionCount();
    }
  }
}
